package dev.inference.retry.springai.openai;

import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpRequestBody;
import com.openai.core.http.HttpResponse;
import dev.inference.retry.springai.exchange.SdkHttp;
import java.io.InputStream;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The OpenAI Java SDK's HTTP layer (4.49.0) as the retried exchanges read and change its requests and
 * responses, with plain calls on its types. The Anthropic SDK's twin, {@code AnthropicHttp}, has the same
 * lines over that SDK's types, which share no supertype with these.
 */
final class OpenAiHttp extends SdkHttp<HttpResponse> {

    OpenAiHttp(OpenAiFailures failures) {
        super(HttpClient.class, HttpResponse.class, failures);
    }

    @Override
    protected List<String> requestHeader(Object request, String name) {
        return ((HttpRequest) request).headers().values(name);
    }

    @Override
    protected Object withRequestHeader(Object request, String name, @Nullable String value) {
        HttpRequest.Builder builder = ((HttpRequest) request).toBuilder().removeHeaders(name);
        return ((value != null) ? builder.putHeader(name, value) : builder).build();
    }

    @Override
    protected boolean isRepeatable(Object request) {
        HttpRequestBody body = ((HttpRequest) request).body();
        return body == null || body.repeatable();
    }

    @Override
    protected int status(HttpResponse response) {
        return response.statusCode();
    }

    @Override
    protected List<String> responseHeader(HttpResponse response, String name) {
        return response.headers().values(name);
    }

    @Override
    protected InputStream body(HttpResponse response) {
        return response.body();
    }

    @Override
    protected void close(HttpResponse response) {
        response.close();
    }
}
