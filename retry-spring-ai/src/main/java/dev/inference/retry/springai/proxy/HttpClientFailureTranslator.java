package dev.inference.retry.springai.proxy;

import dev.inference.failure.QuotaExceededException;
import dev.inference.retry.springai.ChatModelFailureTranslator;
import dev.inference.retry.springai.exchange.TypedFailures;
import java.time.Clock;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
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
 * error a provider sent inside a stream, whose status is the stream's own), it does not know. A library
 * whose response exception tells a used-up quota (the OpenAI SDK's) makes that a
 * {@link QuotaExceededException}, which is final.
 *
 * <p>The instances for Spring's clients are made by the nested classes, each loaded only when its
 * library is on the class path: {@link SpringWeb} ({@code RestClient}, {@code RestTemplate}) and
 * {@link WebFlux} ({@code WebClient}); a provider's SDK makes its own with {@link #of}.
 *
 * @param <R> the library's exception for a response with an error status
 */
public final class HttpClientFailureTranslator<R extends Throwable> implements ChatModelFailureTranslator {

    private final String client;

    private final Class<R> responseFailure;

    private final ToIntFunction<R> status;

    private final BiFunction<R, String, @Nullable String> header;

    private final Class<? extends Throwable> exchangeFailure;

    private final Clock clock;

    private final Function<R, Optional<QuotaExceededException>> quota;

    private HttpClientFailureTranslator(String client, Class<R> responseFailure, ToIntFunction<R> status,
            BiFunction<R, String, @Nullable String> header, Class<? extends Throwable> exchangeFailure, Clock clock,
            Function<R, Optional<QuotaExceededException>> quota) {
        this.client = client;
        this.responseFailure = responseFailure;
        this.status = status;
        this.header = header;
        this.exchangeFailure = exchangeFailure;
        this.clock = clock;
        this.quota = quota;
    }

    /**
     * Makes the translator of one client library.
     *
     * @param <R> the library's exception for a response with an error status
     * @param client the library's name, for {@code toString}
     * @param responseFailure the library's exception for a response with an error status
     * @param status reads that exception's status
     * @param header reads the first value of a header of that exception's response, or {@code null}
     * @param exchangeFailure the library's exception for an exchange that broke
     * @param clock what "now" is for a {@code Retry-After} date
     * @return the translator
     */
    public static <R extends Throwable> ChatModelFailureTranslator of(String client, Class<R> responseFailure,
            ToIntFunction<R> status, BiFunction<R, String, @Nullable String> header,
            Class<? extends Throwable> exchangeFailure, Clock clock) {
        return of(client, responseFailure, status, header, exchangeFailure, clock, (response) -> Optional.empty());
    }

    /**
     * Makes the translator of one client library whose response exception can say that the account's
     * quota is used up: such a failure becomes a {@link QuotaExceededException}, never retried.
     *
     * @param <R> the library's exception for a response with an error status
     * @param client the library's name, for {@code toString}
     * @param responseFailure the library's exception for a response with an error status
     * @param status reads that exception's status
     * @param header reads the first value of a header of that exception's response, or {@code null}
     * @param exchangeFailure the library's exception for an exchange that broke
     * @param clock what "now" is for a {@code Retry-After} date
     * @param quota reads the quota failure a response exception stands for, if it stands for one (see
     *     {@link dev.inference.failure.ProviderErrorTypes#quotaExceeded})
     * @return the translator
     */
    public static <R extends Throwable> ChatModelFailureTranslator of(String client, Class<R> responseFailure,
            ToIntFunction<R> status, BiFunction<R, String, @Nullable String> header,
            Class<? extends Throwable> exchangeFailure, Clock clock, Function<R, Optional<QuotaExceededException>> quota) {
        return new HttpClientFailureTranslator<>(client, responseFailure, status, header, exchangeFailure, clock,
                quota);
    }

    @Override
    public Optional<RuntimeException> translate(Throwable failure) {
        if (this.responseFailure.isInstance(failure)) {
            R response = this.responseFailure.cast(failure);
            Optional<QuotaExceededException> quotaExceeded = this.quota.apply(response);
            if (quotaExceeded.isPresent()) {
                quotaExceeded.get().initCause(failure);
                return Optional.of(quotaExceeded.get());
            }
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
            return of("RestClient", RestClientResponseException.class,
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
            return of("WebClient", WebClientResponseException.class,
                    (response) -> response.getStatusCode().value(), (response, name) -> response.getHeaders().getFirst(name),
                    WebClientRequestException.class, clock);
        }
    }
}
