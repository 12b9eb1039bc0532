package dev.inference.retry.springai.openai;

import com.openai.core.http.Headers;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpResponse;
import dev.inference.retry.springai.exchange.SdkHttp;
import java.io.InputStream;

/**
 * The OpenAI Java SDK's HTTP types (4.49.0) bound to the retried exchanges ({@link SdkHttp}, which holds
 * the logic), with the SDK's failures built by {@link OpenAiFailures}.
 */
final class OpenAiHttp {

    /** The OpenAI SDK's HTTP layer. */
    static final SdkHttp<HttpResponse> HTTP = SdkHttp.<HttpRequest, HttpResponse, Headers>builder(HttpClient.class,
            HttpRequest.class, Headers::values)
        .requests(HttpRequest::headers, (request) -> request.body() == null || request.body().repeatable(),
                (request, name, value) -> {
                    HttpRequest.Builder builder = request.toBuilder().removeHeaders(name);
                    return ((value != null) ? builder.putHeader(name, value) : builder).build();
                })
        .build(new SdkHttp.Responses<>(HttpResponse::statusCode, HttpResponse::headers, HttpResponse::body,
                HttpResponse::close), WithBody::new, new OpenAiFailures());

    private OpenAiHttp() {
    }

    /** The SDK's response with another body ({@link SdkHttp.WithBody}). */
    private static final class WithBody extends SdkHttp.WithBody<HttpResponse, Headers> implements HttpResponse {

        WithBody(HttpResponse original, InputStream body, SdkHttp.Responses<HttpResponse, Headers> responses) {
            super(original, body, responses);
        }
    }
}
