package dev.inference.retry.springai.anthropic;

import com.anthropic.core.http.Headers;
import com.anthropic.core.http.HttpClient;
import com.anthropic.core.http.HttpRequest;
import com.anthropic.core.http.HttpResponse;
import dev.inference.retry.springai.exchange.SdkHttp;
import java.io.InputStream;

/**
 * The Anthropic Java SDK's HTTP types (2.52.0) bound to the retried exchanges ({@link SdkHttp}, which holds
 * the logic), with the SDK's failures built by {@link AnthropicFailures}.
 */
final class AnthropicHttp {

    /** The Anthropic SDK's HTTP layer. */
    static final SdkHttp<HttpResponse> HTTP = SdkHttp.<HttpRequest, HttpResponse, Headers>builder(HttpClient.class,
            HttpRequest.class, Headers::values)
        .requests(HttpRequest::headers, (request) -> request.body() == null || request.body().repeatable(),
                (request, name, value) -> {
                    HttpRequest.Builder builder = request.toBuilder().removeHeaders(name);
                    return ((value != null) ? builder.putHeader(name, value) : builder).build();
                })
        .build(new SdkHttp.Responses<>(HttpResponse::statusCode, HttpResponse::headers, HttpResponse::body,
                HttpResponse::close), WithBody::new, new AnthropicFailures());

    private AnthropicHttp() {
    }

    /** The SDK's response with another body ({@link SdkHttp.WithBody}). */
    private static final class WithBody extends SdkHttp.WithBody<HttpResponse, Headers> implements HttpResponse {

        WithBody(HttpResponse original, InputStream body, SdkHttp.Responses<HttpResponse, Headers> responses) {
            super(original, body, responses);
        }
    }
}
