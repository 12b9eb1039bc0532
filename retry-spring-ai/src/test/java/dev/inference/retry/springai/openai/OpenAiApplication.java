package dev.inference.retry.springai.openai;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * How this package's application tests start an application: the real OpenAI starter, this module and
 * every auto-configuration they bring, its chat model calling a provider on a loopback port and retried
 * on {@code inference.retry.*} alone (three attempts, 50 ms apart), the models of other kinds switched
 * off. A test sets its own properties on the builder returned, which replace these.
 */
final class OpenAiApplication {

    private OpenAiApplication() {
    }

    /**
     * Returns a builder of the application, not yet run, whose chat model calls the provider on this port.
     *
     * @param source the application's configuration
     * @param port the loopback port of a provider of OpenAI's chat completions
     * @return the builder
     */
    static SpringApplicationBuilder builder(Class<?> source, int port) {
        return new SpringApplicationBuilder(source).web(WebApplicationType.NONE)
            .properties("inference.retry.stable-retries=0", "inference.retry.stable-delay=50ms",
                    "inference.retry.max-attempts=3", "inference.retry.max-delay=50ms",
                    "spring.ai.openai.base-url=http://127.0.0.1:" + port + "/v1",
                    "spring.ai.openai.api-key=test", "spring.ai.model.embedding=none", "spring.ai.model.image=none",
                    "spring.ai.model.audio.speech=none", "spring.ai.model.audio.transcription=none",
                    "spring.ai.model.moderation=none", "spring.ai.model.chat=openai", "spring.main.banner-mode=off");
    }
}
