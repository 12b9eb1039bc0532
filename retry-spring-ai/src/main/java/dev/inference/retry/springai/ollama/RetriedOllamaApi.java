package dev.inference.retry.springai.ollama;

import dev.inference.retry.Retrier;
import dev.inference.retry.springai.ModelNotRetriableException;
import dev.inference.retry.springai.exchange.RetryingExchangeFilter;
import dev.inference.retry.springai.exchange.RetryingRequestInterceptor;
import dev.inference.retry.springai.internal.OllamaInternals;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.ResponseErrorHandler;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * An {@link OllamaApi} (Spring AI 2.0.1) of one retried model's own, whose HTTP exchanges a
 * {@link Retrier} retries: its {@link RestClient} and {@link WebClient} are those of the API the model
 * was built on, {@linkplain RestClient#mutate() mutated} (everything kept) with a
 * {@link RetryingRequestInterceptor} for blocking calls and a {@link RetryingExchangeFilter} for streams as
 * the innermost link. The original API, a bean that the models left alone share, is left untouched.
 *
 * <p>Traps: the API exposes neither client, so they are read from its private fields, declared in
 * {@link OllamaInternals} with the version they were read from. A {@code RestClient} on Apache HttpClient
 * 5 retries by itself beneath the interceptor, so it is refused (its transport read the same way).
 */
final class RetriedOllamaApi {

    /** Spring's transport on Apache HttpClient 5, whose default retry strategy retries 429 and 503 itself. */
    private static final String APACHE_TRANSPORT = "org.springframework.http.client.HttpComponentsClientHttpRequestFactory";

    private RetriedOllamaApi() {
    }

    /**
     * Makes the retried API of a model.
     *
     * @param api the API the model was built on, left unchanged
     * @param beanName the model's bean name, for the exception
     * @param retrier the decisions about every exchange of the model
     * @param errorHandler the handler with which the API's {@code RestClient} turns an error status into
     *     its exception, as Spring AI's auto-configuration gave it to the {@code OllamaApi}
     * @return a new API on the same base URL
     * @throws ModelNotRetriableException if the API does not have the expected shape, or its
     *     {@code RestClient} sends through Apache HttpClient 5, which would retry beneath the retrier
     */
    static OllamaApi of(OllamaApi api, String beanName, Retrier retrier, ResponseErrorHandler errorHandler) {
        RestClient restClient = OllamaInternals.API_REST_CLIENT.read(api, beanName);
        refuseARetryingTransport(restClient, beanName);
        WebClient webClient = OllamaInternals.API_WEB_CLIENT.read(api, beanName);
        return OllamaApi.builder()
            .baseUrl(baseUrlOf(restClient))
            .restClientBuilder(restClient.mutate().requestInterceptor(new RetryingRequestInterceptor(retrier,
                    errorHandler)))
            .webClientBuilder(webClient.mutate().filter(new RetryingExchangeFilter(retrier)))
            .responseErrorHandler(NoFurtherHandling.INSTANCE)
            .build();
    }

    /**
     * Tells whether an API is one this class made.
     *
     * @param api the API
     * @param beanName the model's bean name, for the exception
     * @return {@code true} if its blocking calls are retried
     */
    static boolean isRetried(OllamaApi api, String beanName) {
        RestClient restClient = OllamaInternals.API_REST_CLIENT.read(api, beanName);
        AtomicBoolean retried = new AtomicBoolean();
        restClient.mutate().requestInterceptors((interceptors) -> retried
            .set(interceptors.stream().anyMatch(RetryingRequestInterceptor.class::isInstance)));
        return retried.get();
    }

    /**
     * Refuses a client on Apache HttpClient 5: its default retry strategy retries a 429 or 503 once more
     * beneath the retrier, waiting out the provider's {@code Retry-After} however long, and Spring's
     * {@code RestClient} picks it by itself whenever it is on the class path.
     */
    private static void refuseARetryingTransport(RestClient restClient, String beanName) {
        Object transport = OllamaInternals.REST_CLIENT_TRANSPORT.read(restClient, beanName);
        for (Class<?> type = transport.getClass(); type != null; type = type.getSuperclass()) {
            if (APACHE_TRANSPORT.equals(type.getName())) {
                throw new ModelNotRetriableException("model", beanName, "its OllamaApi sends through Apache "
                        + "HttpClient 5 (" + transport.getClass().getName() + "), which retries a 429 or 503 itself "
                        + "beneath the starter and waits out any Retry-After, uncapped. Spring's RestClient picks it "
                        + "whenever it is on the class path: Spring AI 2.0.0 brings it with the Anthropic SDK "
                        + "(anthropic-java 2.40.1), 2.0.1 does not. Give Spring AI's Ollama client another transport "
                        + "(with Spring Boot's RestClient.Builder, spring.http.clients.imperative.factory=reactor, jdk "
                        + "or simple; or a RestClient.Builder bean on another ClientHttpRequestFactory), or upgrade "
                        + "to Spring AI 2.0.1 and keep Apache HttpClient 5 off the class path", null);
            }
        }
    }

    /**
     * Returns the base URL a client resolves its requests' paths against: the URI its URI builder starts
     * from. The request spec is only built to read it; no request is sent.
     */
    private static String baseUrlOf(RestClient client) {
        AtomicReference<URI> base = new AtomicReference<>();
        client.get().uri((builder) -> {
            URI uri = builder.build();
            base.set(uri);
            return uri;
        });
        return Objects.requireNonNull(base.get(), "The client's URI builder was not called").toString();
    }

    /**
     * The status handler {@code OllamaApi}'s builder appends to the mutated client, after the original's
     * own handler: it handles nothing, so that an error status goes on to the client's own default
     * handler exactly as in the original client.
     */
    private enum NoFurtherHandling implements ResponseErrorHandler {

        INSTANCE;

        @Override
        public boolean hasError(ClientHttpResponse response) {
            return false;
        }
    }
}
