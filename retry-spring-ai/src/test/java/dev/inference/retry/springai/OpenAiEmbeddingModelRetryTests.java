package dev.inference.retry.springai;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.openai.errors.BadRequestException;
import com.openai.errors.InternalServerException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Spring AI 2.0.1's real OpenAI embedding model, auto-configured as an application gets it, against a
 * provider speaking OpenAI's wire format on a loopback port: its exchanges are retried beneath the bean,
 * with its own client's retries off (whose default, {@code spring.ai.openai.max-retries}, is 3).
 */
class OpenAiEmbeddingModelRetryTests extends EmbeddingModelRetryContract {

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback(OpenAiWire.EMBEDDINGS);

    @Override
    protected ScriptedProvider provider() {
        return provider;
    }

    @Override
    protected String path() {
        return OpenAiWire.EMBEDDINGS;
    }

    @Override
    protected String beanName() {
        return "openAiEmbeddingModel";
    }

    @Override
    protected ApplicationContextRunner runnerAgainst(int port) {
        return SpringAiStarters.openAiEmbedding("http://127.0.0.1:" + port);
    }

    @Override
    protected ResponseDefinitionBuilder embeddings() {
        return json(200, OpenAiWire.embeddings());
    }

    @Override
    protected ResponseDefinitionBuilder error(int status, String message) {
        return json(status, OpenAiWire.error((status == 429) ? "rate_limit_exceeded" : "server_error", message));
    }

    @Override
    protected Class<? extends RuntimeException> serverErrorException() {
        return InternalServerException.class;
    }

    @Override
    protected Class<? extends RuntimeException> badRequestException() {
        return BadRequestException.class;
    }
}
