package dev.inference.retry.springai;

import com.anthropic.errors.AnthropicIoException;
import com.anthropic.errors.AnthropicServiceException;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.OpenAIServiceException;
import java.time.Clock;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClientResponseException;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * Knows the two failures of one HTTP client library: its exception for a response with an error status
 * (400 or more), which becomes the provider's status failure with the wait its {@code retry-after-ms} or
 * {@code Retry-After} header asks for, and its exception for an exchange that broke, which becomes a
 * network failure. Anything else, a response exception with a status below 400 included (such as an
 * error a provider sent inside a stream, whose status is the stream's own), it does not know.
 *
 * <p>The built-in instances are made by the nested classes, one per library, each loaded only when
 * its library is on the class path: {@link SpringWeb} ({@code RestClient}, {@code RestTemplate}),
 * {@link WebFlux} ({@code WebClient}), {@link OpenAiSdk} and {@link AnthropicSdk}.
 *
 * @param <R> the library's exception for a response with an error status
 */
final class HttpClientFailureTranslator<R extends Throwable> implements ChatModelFailureTranslator {

    private final String client;

    private final Class<R> responseFailure;

    private final ToIntFunction<R> status;

    private final BiFunction<R, String, @Nullable String> header;

    private final Class<? extends Throwable> exchangeFailure;

    private final Clock clock;

    private HttpClientFailureTranslator(String client, Class<R> responseFailure, ToIntFunction<R> status,
            BiFunction<R, String, @Nullable String> header, Class<? extends Throwable> exchangeFailure, Clock clock) {
        this.client = client;
        this.responseFailure = responseFailure;
        this.status = status;
        this.header = header;
        this.exchangeFailure = exchangeFailure;
        this.clock = clock;
    }

    @Override
    public Optional<RuntimeException> translate(Throwable failure) {
        if (this.responseFailure.isInstance(failure)) {
            R response = this.responseFailure.cast(failure);
            int status = this.status.applyAsInt(response);
            return (status >= 400)
                    ? TypedFailures.status(status, (name) -> this.header.apply(response, name), this.clock, failure)
                    : Optional.empty();
        }
        if (this.exchangeFailure.isInstance(failure)) {
            return Optional.of(TypedFailures.network(failure));
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "HttpClientFailureTranslator[" + this.client + "]";
    }

    /** Spring's blocking clients: {@link RestClientResponseException} and {@link ResourceAccessException}. */
    static final class SpringWeb {

        private SpringWeb() {
        }

        static ChatModelFailureTranslator translator(Clock clock) {
            return new HttpClientFailureTranslator<>("RestClient", RestClientResponseException.class,
                    (response) -> response.getStatusCode().value(), SpringWeb::header, ResourceAccessException.class,
                    clock);
        }

        private static @Nullable String header(RestClientResponseException response, String name) {
            HttpHeaders headers = response.getResponseHeaders();
            return (headers != null) ? headers.getFirst(name) : null;
        }
    }

    /** Spring's reactive client: {@link WebClientResponseException} and {@link WebClientRequestException}. */
    static final class WebFlux {

        private WebFlux() {
        }

        static ChatModelFailureTranslator translator(Clock clock) {
            return new HttpClientFailureTranslator<>("WebClient", WebClientResponseException.class,
                    (response) -> response.getStatusCode().value(), (response, name) -> response.getHeaders().getFirst(name),
                    WebClientRequestException.class, clock);
        }
    }

    /** The OpenAI Java SDK: {@link OpenAIServiceException} and {@link OpenAIIoException}. */
    static final class OpenAiSdk {

        private OpenAiSdk() {
        }

        static ChatModelFailureTranslator translator(Clock clock) {
            return new HttpClientFailureTranslator<>("OpenAI SDK", OpenAIServiceException.class,
                    OpenAIServiceException::statusCode,
                    (response, name) -> TypedFailures.first(response.headers().values(name)), OpenAIIoException.class,
                    clock);
        }
    }

    /**
     * The Anthropic Java SDK: {@link AnthropicServiceException} (529 is Anthropic's "overloaded") and
     * {@link AnthropicIoException}.
     */
    static final class AnthropicSdk {

        private AnthropicSdk() {
        }

        static ChatModelFailureTranslator translator(Clock clock) {
            return new HttpClientFailureTranslator<>("Anthropic SDK", AnthropicServiceException.class,
                    AnthropicServiceException::statusCode,
                    (response, name) -> TypedFailures.first(response.headers().values(name)), AnthropicIoException.class,
                    clock);
        }
    }
}
