package dev.inference.retry.springai.fallback;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.http.Fault;
import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.retry.FallbackExhaustedException;
import dev.inference.retry.autoconfigure.fallback.InvalidFallbackPropertyException;
import dev.inference.retry.springai.AnthropicWire;
import dev.inference.retry.springai.OllamaWire;
import dev.inference.retry.springai.OpenAiWire;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * An application with the real OpenAI, Anthropic and Ollama starters and a chain {@code chat} over their
 * chat models, every provider on loopback (WireMock): what falls over, what does not, and how fast.
 */
class ChatModelFallbackApplicationTests {

    private final WireMockServer openAi = new WireMockServer(wireMockConfig().bindAddress("127.0.0.1").dynamicPort());

    private final WireMockServer anthropic = new WireMockServer(wireMockConfig().bindAddress("127.0.0.1").dynamicPort());

    @BeforeEach
    void startProviders() {
        this.openAi.start();
        this.anthropic.start();
        this.anthropic.stubFor(post(urlEqualTo(AnthropicWire.PATH)).withRequestBody(matchingJsonPath("$.stream"))
            .willReturn(sse(AnthropicWire.stream(List.of("From ", "Claude")))));
        this.anthropic.stubFor(post(urlEqualTo(AnthropicWire.PATH)).atPriority(10)
            .willReturn(json(AnthropicWire.message("From Claude"))));
    }

    @AfterEach
    void stopProviders() {
        this.openAi.stop();
        this.anthropic.stop();
    }

    private static ResponseDefinitionBuilder json(String body) {
        return aResponse().withHeader("Content-Type", "application/json").withBody(body);
    }

    private static ResponseDefinitionBuilder sse(String body) {
        return aResponse().withHeader("Content-Type", "text/event-stream").withBody(body);
    }

    private void openAiAnswers(ResponseDefinitionBuilder response) {
        this.openAi.stubFor(post(urlEqualTo(OpenAiWire.PATH)).willReturn(response));
    }

    private int openAiRequests() {
        return this.openAi.countRequestsMatching(postRequestedFor(urlEqualTo(OpenAiWire.PATH)).build()).getCount();
    }

    private int anthropicRequests() {
        return this.anthropic.countRequestsMatching(postRequestedFor(urlEqualTo(AnthropicWire.PATH)).build())
            .getCount();
    }

    /**
     * Makes one call of each model so that the timed call measures the chain, not the first use of two
     * SDK clients on a busy machine; OpenAI then answers as a test scripts it.
     */
    private void warmUp(ConfigurableApplicationContext context) {
        openAiAnswers(json(OpenAiWire.completion("warm")));
        this.openAi.stubFor(post(urlEqualTo(OpenAiWire.PATH)).withRequestBody(matchingJsonPath("$.stream"))
            .willReturn(sse(OpenAiWire.stream(List.of("warm")))));
        context.getBean("openAiChatModel", ChatModel.class).call("Hi");
        context.getBean("anthropicChatModel", ChatModel.class).call("Hi");
        context.getBean("openAiChatModel", ChatModel.class).stream("Hi").blockLast();
        context.getBean("anthropicChatModel", ChatModel.class).stream("Hi").blockLast();
        this.openAi.resetRequests();
        this.anthropic.resetRequests();
    }

    private static String content(ChatResponse response) {
        return response.getResult().getOutput().getText();
    }

    /** Streams a prompt from the chain {@code chat} and joins what arrives. */
    private static String streamed(ConfigurableApplicationContext context) {
        List<String> chunks = context.getBean("chat", ChatModel.class).stream("Hi").collectList()
            .block(Duration.ofSeconds(20));
        return String.join("", chunks);
    }

    /** Starts the application with a chain of these members, Ollama served by {@code ollama}. */
    private ConfigurableApplicationContext startWithOllama(String members, WireMockServer ollama) {
        return start("inference.retry.fallbacks.chat.members=" + members,
                "spring.ai.ollama.base-url=http://127.0.0.1:" + ollama.port(),
                "spring.ai.ollama.chat.model=" + OllamaWire.MODEL);
    }

    @Nested
    class Call {

        @Test
        void isAnsweredByAnthropicWithItsOwnModelAndThePromptsTemperatureWhenOpenAiIsDown() {
            openAiAnswers(aResponse().withStatus(503));
            try (ConfigurableApplicationContext context = start()) {
                ChatModel chat = context.getBean("chat", ChatModel.class);

                ChatResponse response = chat.call(new Prompt("Hi",
                        ChatOptions.builder().model("gpt-4o-mini").temperature(0.3).build()));

                assertThat(content(response)).isEqualTo("From Claude");
                assertThat(response.getMetadata().getModel()).isEqualTo("claude-test");
                assertThat(openAiRequests()).isEqualTo(3);
                anthropic.verify(postRequestedFor(urlEqualTo(AnthropicWire.PATH))
                    .withRequestBody(matchingJsonPath("$.model", WireMock
                        .equalTo("claude-own")))
                    .withRequestBody(matchingJsonPath("$.temperature", WireMock
                        .equalTo("0.3"))));
            }
        }

        @Test
        void givesChatClientBuilderThePrimaryChain() {
            openAiAnswers(aResponse().withStatus(503));
            try (ConfigurableApplicationContext context = start()) {
                ChatClient client = context.getBean(ChatClient.Builder.class).build();

                assertThat(client.prompt("Hi").call().content()).isEqualTo("From Claude");
            }
        }

        @Test
        void doesNotFallOverOnABadRequest() {
            openAiAnswers(json(OpenAiWire.error("invalid_request_error", "bad")).withStatus(400));
            try (ConfigurableApplicationContext context = start()) {
                ChatModel chat = context.getBean("chat", ChatModel.class);

                assertThatThrownBy(() -> chat.call(new Prompt("Hi"))).isNotInstanceOf(FallbackExhaustedException.class);
                assertThat(anthropicRequests()).isZero();
            }
        }

        @Test
        void fallsOverAfterOneRequestWhenOpenAiHasNoQuotaLeft() {
            openAiAnswers(json(OpenAiWire.insufficientQuota("You exceeded your current quota")).withStatus(429));
            try (ConfigurableApplicationContext context = start()) {
                assertThat(context.getBean("chat", ChatModel.class).call("Hi")).isEqualTo("From Claude");
                assertThat(openAiRequests()).isEqualTo(1);
            }
        }

        @Test
        void fallsOverAfterOneRequestWhenOpenAiRefusesTheKey() {
            openAiAnswers(json(OpenAiWire.error("invalid_request_error", "Incorrect API key")).withStatus(401));
            try (ConfigurableApplicationContext context = start()) {
                assertThat(context.getBean("chat", ChatModel.class).call("Hi")).isEqualTo("From Claude");
                assertThat(openAiRequests()).isEqualTo(1);
            }
        }

        @Test
        void fallsOverWhenOpenAiRefusesTheKeyWithAnErrorThatHasNoType() {
            openAiAnswers(json("{\"error\":{\"message\":\"no key\"}}").withStatus(401));
            try (ConfigurableApplicationContext context = start()) {
                assertThat(context.getBean("chat", ChatModel.class).call("Hi")).isEqualTo("From Claude");
            }
        }

        @Test
        void isAnsweredByTheNextMemberAtOnceWhenOpenAiAsksToWait30Seconds() {
            try (ConfigurableApplicationContext context = start()) {
                warmUp(context);
                openAiAnswers(json(OpenAiWire.error("rate_limit_exceeded", "slow down")).withStatus(429)
                    .withHeader("Retry-After", "30"));
                long start = System.nanoTime();

                assertThat(context.getBean("chat", ChatModel.class).call("Hi")).isEqualTo("From Claude");

                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
                assertThat(openAiRequests()).isEqualTo(1);
            }
        }

        @Test
        void throwsFallbackExhaustedWhenEveryMemberFellOver() {
            openAiAnswers(aResponse().withStatus(503));
            anthropic.resetMappings();
            anthropic.stubFor(post(urlEqualTo(AnthropicWire.PATH)).willReturn(json(AnthropicWire
                .error("authentication_error", "bad key")).withStatus(401)));
            try (ConfigurableApplicationContext context = start()) {
                assertThatThrownBy(() -> context.getBean("chat", ChatModel.class).call("Hi"))
                    .isInstanceOf(FallbackExhaustedException.class)
                    .satisfies((ex) -> assertThat(((FallbackExhaustedException) ex).attempts()).isEqualTo(4));
            }
        }
    }

    @Nested
    class Stream {

        @Test
        void fallsOverBeforeContent() {
            openAiAnswers(aResponse().withStatus(503));
            try (ConfigurableApplicationContext context = start()) {
                assertThat(streamed(context)).isEqualTo("From Claude");
            }
        }

        @Test
        void neverFallsOverOnceContentBegan() {
            openAiAnswers(sse(OpenAiWire.event(OpenAiWire.chunk("From GPT")) + "data: {not json\n\n"));
            try (ConfigurableApplicationContext context = start()) {
                List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();

                assertThatThrownBy(() -> context.getBean("chat", ChatModel.class).stream("Hi")
                    .doOnNext(seen::add)
                    .blockLast()).isNotInstanceOf(FallbackExhaustedException.class);
                assertThat(seen).containsExactly("From GPT");
                assertThat(anthropicRequests()).isZero();
            }
        }

        @Test
        void isAnsweredByTheNextMemberAtOnceWhenOpenAiAsksToWait30Seconds() {
            try (ConfigurableApplicationContext context = start()) {
                warmUp(context);
                openAiAnswers(json(OpenAiWire.error("rate_limit_exceeded", "slow down")).withStatus(429)
                    .withHeader("Retry-After", "30"));
                long start = System.nanoTime();

                assertThat(streamed(context)).isEqualTo("From Claude");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
                assertThat(openAiRequests()).isEqualTo(1);
            }
        }

        @Test
        void fallsOverWhenOpenAisConnectionIsCutBeforeContent() {
            openAiAnswers(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER));
            try (ConfigurableApplicationContext context = start()) {
                assertThat(streamed(context)).isEqualTo("From Claude");
            }
        }
    }

    @Nested
    class Ollama {

        @Test
        void answersWithItsOwnModelWhenOpenAiIsDown() {
            openAiAnswers(aResponse().withStatus(503));
            anthropic.stubFor(post(urlEqualTo(OllamaWire.CHAT)).willReturn(OllamaWire.chat("From Llama")));
            try (ConfigurableApplicationContext context = startWithOllama("openAiChatModel, ollamaChatModel",
                    anthropic)) {
                ChatResponse response = context.getBean("chat", ChatModel.class)
                    .call(new Prompt("Hi", ChatOptions.builder().model("gpt-4o-mini").temperature(0.3).build()));

                assertThat(content(response)).isEqualTo("From Llama");
                anthropic.verify(postRequestedFor(urlEqualTo(OllamaWire.CHAT))
                    .withRequestBody(matchingJsonPath("$.model", WireMock.equalTo(OllamaWire.MODEL))));
            }
        }

        @Test
        void streamsWhenOpenAiIsDownBeforeContent() {
            openAiAnswers(aResponse().withStatus(503));
            anthropic.stubFor(post(urlEqualTo(OllamaWire.CHAT)).willReturn(OllamaWire.stream("From ", "Llama")));
            try (ConfigurableApplicationContext context = startWithOllama("openAiChatModel, ollamaChatModel",
                    anthropic)) {
                assertThat(streamed(context)).isEqualTo("From Llama");
            }
        }

        @Test
        void streamIsAnsweredByTheNextMemberAtOnceWhenOllamaAsksToWait30Seconds() {
            // Ollama first, on the server that plays OpenAI elsewhere; its stream's exchange runs on Reactor.
            openAi.stubFor(post(urlEqualTo(OllamaWire.CHAT)).willReturn(OllamaWire.stream("warm")));
            try (ConfigurableApplicationContext context = startWithOllama("ollamaChatModel, anthropicChatModel",
                    openAi)) {
                context.getBean("ollamaChatModel", ChatModel.class).stream("Hi").blockLast();
                context.getBean("anthropicChatModel", ChatModel.class).stream("Hi").blockLast();
                openAi.stubFor(post(urlEqualTo(OllamaWire.CHAT)).willReturn(OllamaWire.error(429, "slow down")
                    .withHeader("Retry-After", "30")));
                openAi.resetRequests();
                long start = System.nanoTime();

                assertThat(streamed(context)).isEqualTo("From Claude");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
                assertThat(openAi.countRequestsMatching(postRequestedFor(urlEqualTo(OllamaWire.CHAT)).build())
                    .getCount()).isEqualTo(1);
            }
        }
    }

    @Nested
    class Refusals {

        @Test
        void failsToStartWhenAMemberNamesNoChatModel() {
            assertThatThrownBy(() -> start("inference.retry.fallbacks.chat.members=openAiChatModel, anthropicModel"))
                .isInstanceOf(InvalidFallbackPropertyException.class)
                .hasMessageContaining("inference.retry.fallbacks.chat.members")
                .hasMessageContaining("'anthropicModel' names none");
        }

        @Test
        void failsToStartWhenTheMembersKindsDiffer() {
            assertThatThrownBy(() -> new SpringApplicationBuilder(Application.class, OneInferenceClient.class)
                .web(WebApplicationType.NONE)
                .properties(properties())
                .run("--inference.retry.fallbacks.chat.members=openAiChatModel, local"))
                .isInstanceOf(InvalidFallbackPropertyException.class)
                .hasMessageContaining("'openAiChatModel' is of kind ChatModel while 'local' is of kind InferenceClient");
        }
    }

    /** An {@code InferenceClient} bean beside the chat models. */
    @Configuration(proxyBeanMethods = false)
    static class OneInferenceClient {

        @Bean
        InferenceClient local() {
            return new InferenceClient() {

                @Override
                public InferenceResponse invoke(InferenceRequest request, CallContext context) {
                    return InferenceResponse.of("local");
                }

                @Override
                public StreamReader stream(InferenceRequest request, CallContext context) {
                    throw new UnsupportedOperationException("Not streamed here");
                }
            };
        }
    }

    private String[] properties() {
        return new String[] { "inference.retry.stable-retries=0", "inference.retry.stable-delay=50ms",
                "inference.retry.max-attempts=3", "inference.retry.max-delay=50ms",
                "inference.retry.fallbacks.chat.members=openAiChatModel, anthropicChatModel",
                "inference.retry.fallbacks.chat.primary=true",
                "spring.ai.openai.base-url=http://127.0.0.1:" + this.openAi.port() + "/v1",
                "spring.ai.openai.api-key=test",
                "spring.ai.anthropic.base-url=http://127.0.0.1:" + this.anthropic.port(),
                "spring.ai.anthropic.api-key=test", "spring.ai.anthropic.chat.options.model=claude-own",
                "spring.ai.model.embedding=none", "spring.ai.model.image=none",
                "spring.ai.model.audio.speech=none", "spring.ai.model.audio.transcription=none",
                "spring.ai.model.moderation=none", "spring.main.banner-mode=off",
                // Ollama's RestClient on Reactor Netty: Apache HttpClient 5, a test dependency here, retries beneath the starter.
                "spring.http.clients.imperative.factory=reactor",
                "spring.autoconfigure.exclude=org.springframework.ai.model.google.genai.autoconfigure.chat."
                        + "GoogleGenAiChatAutoConfiguration" };
    }

    private ConfigurableApplicationContext start(String... arguments) {
        return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
            .properties(properties())
            .run(Arrays.stream(arguments).map((argument) -> "--" + argument).toArray(String[]::new));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {
    }
}
