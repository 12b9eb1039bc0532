package dev.inference.retry.springai.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.errors.AnthropicIoException;
import com.openai.core.http.Headers;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.RateLimitException;
import com.openai.errors.SseException;
import com.openai.models.ErrorObject;
import dev.inference.failure.HttpStatusException;
import dev.inference.failure.NetworkException;
import dev.inference.failure.QuotaExceededException;
import dev.inference.retry.Classification;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.springai.ChatModelFailureTranslator;
import dev.inference.retry.springai.anthropic.AnthropicProvider;
import dev.inference.retry.springai.ollama.OllamaProvider;
import dev.inference.retry.springai.openai.OpenAiProvider;
import dev.inference.retry.springai.support.SpringAiProvider;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.ai.retry.NonTransientAiException;
import org.springframework.ai.retry.TransientAiException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * The typed failures the built-in translators make of real exceptions of each client library, and the
 * order in which a retried chat model asks the translators.
 */
class ChatModelFailureTranslatorsTests {

    private static final List<SpringAiProvider> PROVIDERS = List.of(OpenAiProvider.DESCRIPTION,
            AnthropicProvider.DESCRIPTION, OllamaProvider.DESCRIPTION);

    private static final Instant NOW = Instant.parse("2026-01-05T10:00:00Z");

    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    private final ChatModelFailureTranslators translators = ChatModelFailureTranslators.of(List.of(), PROVIDERS,
            getClass().getClassLoader());

    private static HttpHeaders headers(String name, String value) {
        HttpHeaders headers = new HttpHeaders();
        headers.add(name, value);
        return headers;
    }

    private static HttpStatusException status(ChatModelFailureTranslator translator, Throwable failure) {
        Optional<RuntimeException> typed = translator.translate(failure);
        assertThat(typed).containsInstanceOf(HttpStatusException.class);
        return (HttpStatusException) typed.orElseThrow();
    }

    private static NetworkException network(ChatModelFailureTranslator translator, Throwable failure) {
        Optional<RuntimeException> typed = translator.translate(failure);
        assertThat(typed).containsInstanceOf(NetworkException.class);
        return (NetworkException) typed.orElseThrow();
    }

    @Nested
    class RestClient {

        private final ChatModelFailureTranslator translator = HttpClientFailureTranslator.SpringWeb.translator(CLOCK);

        @Test
        void readsTheStatusAndRetryAfterOfAnErrorResponse() {
            HttpClientErrorException tooMany = HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS,
                    "Too Many Requests", headers("Retry-After", "1"), new byte[0], StandardCharsets.UTF_8);

            HttpStatusException typed = status(this.translator, tooMany);

            assertThat(typed.status()).isEqualTo(429);
            assertThat(typed.retryAfter()).contains(Duration.ofSeconds(1));
            assertThat(typed).hasCause(tooMany);
        }

        @Test
        void readsRetryAfterMsBeforeRetryAfter() {
            HttpHeaders headers = headers("Retry-After", "7");
            headers.add("retry-after-ms", "1500");
            HttpServerErrorException unavailable = HttpServerErrorException.create(HttpStatus.SERVICE_UNAVAILABLE,
                    "Service Unavailable", headers, new byte[0], StandardCharsets.UTF_8);

            assertThat(status(this.translator, unavailable).retryAfter()).contains(Duration.ofMillis(1500));
        }

        @Test
        void readsARetryAfterDateAgainstItsClock() {
            HttpClientErrorException tooMany = HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS,
                    "Too Many Requests", headers("Retry-After", "Mon, 05 Jan 2026 10:00:30 GMT"), new byte[0],
                    StandardCharsets.UTF_8);

            assertThat(status(this.translator, tooMany).retryAfter()).contains(Duration.ofSeconds(30));
        }

        @Test
        void makesABadRequestAPermanentStatusFailure() {
            HttpClientErrorException badRequest = HttpClientErrorException.create(HttpStatus.BAD_REQUEST, "Bad Request",
                    new HttpHeaders(), new byte[0], StandardCharsets.UTF_8);

            HttpStatusException typed = status(this.translator, badRequest);

            assertThat(typed.status()).isEqualTo(400);
            assertThat(Classification.isRetryable(typed)).isFalse();
        }

        @Test
        void makesAResourceAccessFailureANetworkFailure() {
            ResourceAccessException refused = new ResourceAccessException("I/O error", new ConnectException("refused"));

            assertThat(network(this.translator, refused)).hasCause(refused);
        }

        @Test
        void doesNotKnowOtherExceptions() {
            assertThat(this.translator.translate(new IllegalStateException("bug"))).isEmpty();
        }
    }

    @Nested
    class WebClient {

        private final ChatModelFailureTranslator translator = HttpClientFailureTranslator.WebFlux.translator(CLOCK);

        @Test
        void readsTheStatusAndRetryAfterOfAnErrorResponse() {
            WebClientResponseException unavailable = WebClientResponseException.create(503, "Service Unavailable",
                    headers("Retry-After", "2"), new byte[0], StandardCharsets.UTF_8);

            HttpStatusException typed = status(this.translator, unavailable);

            assertThat(typed.status()).isEqualTo(503);
            assertThat(typed.retryAfter()).contains(Duration.ofSeconds(2));
            assertThat(typed).hasCause(unavailable);
        }

        @Test
        void makesARequestFailureANetworkFailure() {
            WebClientRequestException refused = new WebClientRequestException(new ConnectException("refused"),
                    HttpMethod.POST, URI.create("http://127.0.0.1:9/v1/chat/completions"), new HttpHeaders());

            assertThat(network(this.translator, refused)).hasCause(refused);
        }
    }

    @Nested
    class OpenAiSdk {

        private final ChatModelFailureTranslator translator = OpenAiProvider.DESCRIPTION.translators().get(0).factory().apply(CLOCK);

        @Test
        void readsTheStatusAndRetryAfterMsOfAServiceException() {
            RateLimitException rateLimited = RateLimitException.builder()
                .headers(Headers.builder().put("retry-after-ms", "250").build())
                .error(Optional.empty())
                .build();

            HttpStatusException typed = status(this.translator, rateLimited);

            assertThat(typed.status()).isEqualTo(429);
            assertThat(typed.retryAfter()).contains(Duration.ofMillis(250));
            assertThat(typed).hasCause(rateLimited);
        }

        @Test
        void makesAUsedUpQuotaAFinalFailure() {
            RateLimitException quota = RateLimitException.builder()
                .headers(Headers.builder().put("retry-after-ms", "250").build())
                .error(ErrorObject.builder().message("Check your billing.").type("insufficient_quota")
                    .code("insufficient_quota").param(Optional.empty()).build())
                .build();

            assertThat(this.translator.translate(quota)).hasValueSatisfying((typed) -> {
                assertThat(typed).isInstanceOf(QuotaExceededException.class).hasCause(quota);
                assertThat(Classification.of(typed).isRetryable()).isFalse();
            });
        }

        @Test
        void makesAnIoFailureANetworkFailure() {
            OpenAIIoException reset = new OpenAIIoException("Request failed", new IOException("reset"));

            assertThat(network(this.translator, reset)).hasCause(reset);
        }

        @Test
        void doesNotKnowAnErrorSentInsideAStream() {
            SseException inBand = SseException.builder()
                .statusCode(200)
                .headers(Headers.builder().build())
                .error(Optional.empty())
                .build();

            assertThat(this.translator.translate(inBand)).isEmpty();
        }
    }

    @Nested
    class AnthropicSdk {

        private final ChatModelFailureTranslator translator = AnthropicProvider.DESCRIPTION.translators().get(0).factory().apply(CLOCK);

        @Test
        void readsTheStatusAndRetryAfterOfAServiceException() {
            com.anthropic.errors.InternalServerException overloaded = com.anthropic.errors.InternalServerException.builder()
                .statusCode(529)
                .headers(com.anthropic.core.http.Headers.builder().put("retry-after", "3").build())
                .body(com.anthropic.core.JsonMissing.of())
                .build();

            HttpStatusException typed = status(this.translator, overloaded);

            assertThat(typed.status()).isEqualTo(529);
            assertThat(typed.retryAfter()).contains(Duration.ofSeconds(3));
            assertThat(Classification.isRetryable(typed)).isTrue();
        }

        @Test
        void makesAnIoFailureANetworkFailure() {
            AnthropicIoException reset = new AnthropicIoException("Request failed", new IOException("reset"));

            assertThat(network(this.translator, reset)).hasCause(reset);
        }
    }

    @Nested
    class SpringAiRetry {

        private final ChatModelFailureTranslator translator = new SpringAiRetryFailureTranslator();

        @ParameterizedTest
        @ValueSource(strings = { "503 - {\"error\":\"busy\"}", "HTTP 503 - {\"error\":\"busy\"}" })
        void makesATransientFailureTheStatusInItsMessageWithoutRetryAfter(String message) {
            HttpStatusException typed = status(this.translator, new TransientAiException(message));

            assertThat(typed.status()).isEqualTo(503);
            assertThat(typed.retryAfter()).isEmpty();
        }

        @Test
        void makesATransientFailureWithoutAStatusANetworkFailure() {
            TransientAiException transientFailure = new TransientAiException("Connection pool shut down");

            assertThat(network(this.translator, transientFailure)).hasCause(transientFailure);
        }

        @Test
        void makesANonTransientClientErrorAPermanentStatusFailure() {
            HttpStatusException typed = status(this.translator, new NonTransientAiException("HTTP 401 - unauthorized"));

            assertThat(typed.status()).isEqualTo(401);
            assertThat(Classification.isRetryable(typed)).isFalse();
        }

        @Test
        void doesNotKnowANonTransientServerError() {
            assertThat(this.translator.translate(new NonTransientAiException("HTTP 500 - excluded"))).isEmpty();
        }
    }

    @Nested
    class TheRetriedModel {

        @Test
        void asksTheApplicationsTranslatorsFirst() {
            HttpStatusException applications = new HttpStatusException(503, "overloaded, says the application", null);
            ChatModelFailureTranslators withApplications = ChatModelFailureTranslators
                .of(List.of((failure) -> Optional.of(applications)), PROVIDERS, getClass().getClassLoader());

            assertThat(withApplications.typedFailureOf(new ResourceAccessException("I/O error"))).isSameAs(applications);
        }

        @Test
        void asksAboutEachCauseOfWhatTheModelThrew() {
            HttpServerErrorException unavailable = HttpServerErrorException.create(HttpStatus.SERVICE_UNAVAILABLE,
                    "Service Unavailable", new HttpHeaders(), new byte[0], StandardCharsets.UTF_8);

            assertThat(translators.typedFailureOf(new IllegalStateException("The model's own wrapper", unavailable)))
                .isInstanceOfSatisfying(HttpStatusException.class, (typed) -> assertThat(typed.status()).isEqualTo(503));
        }

        @Test
        void leavesAFailureWhoseChainHoldsAnExhaustionToTheCore() {
            ExhaustedException beneath = new ExhaustedException(3, new NetworkException("reset", null));
            RuntimeException thrown = new IllegalStateException("wrapped", beneath);

            assertThat(translators.typedFailureOf(thrown)).isSameAs(thrown);
        }

        @Test
        void leavesACancelledClientCallToTheCore() {
            ResourceAccessException cancelled = new ResourceAccessException("I/O error",
                    new IOException("aborted", new CancellationException("cancelled")));

            assertThat(translators.typedFailureOf(cancelled)).isSameAs(cancelled);
        }

        @Test
        void leavesAnUnknownFailureAsItIsSoThatItIsPermanent() {
            RuntimeException unknown = new IllegalArgumentException("no such model");

            assertThat(translators.typedFailureOf(unknown)).isSameAs(unknown);
            assertThat(Classification.isRetryable(unknown)).isFalse();
        }

        @Test
        void skipsATranslatorThatThrows() {
            ChatModelFailureTranslators withBroken = ChatModelFailureTranslators.of(List.of((failure) -> {
                throw new IllegalStateException("broken translator");
            }), PROVIDERS, getClass().getClassLoader());

            assertThat(withBroken.typedFailureOf(new ResourceAccessException("I/O error")))
                .isInstanceOf(NetworkException.class);
        }

        @Test
        void usesOnlyTheBuiltInTranslatorsWhoseLibrariesAreOnTheClassPath() {
            FilteredClassLoader withoutWebFlux = new FilteredClassLoader(WebClientResponseException.class);

            assertThat(ChatModelFailureTranslators.builtIn(PROVIDERS, withoutWebFlux, CLOCK))
                .extracting(Object::toString)
                .containsExactly("HttpClientFailureTranslator[RestClient]", "HttpClientFailureTranslator[OpenAI SDK]",
                        "HttpClientFailureTranslator[Anthropic SDK]", "SpringAiRetryFailureTranslator");
        }
    }
}
