package dev.inference.retry.springai.anthropic;

import com.anthropic.core.http.Headers;
import com.anthropic.core.http.HttpClient;
import com.anthropic.core.http.HttpRequest;
import com.anthropic.core.http.HttpRequestBody;
import com.anthropic.core.http.HttpResponse;
import dev.inference.retry.springai.exchange.SdkHttp;
import java.io.InputStream;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The Anthropic Java SDK's HTTP layer (2.52.0) as the retried exchanges read and change its requests and
 * responses, with plain calls on its types. The OpenAI SDK's twin, {@code OpenAiHttp}, has the same
 * lines over that SDK's types, which share no supertype with these.
 */
final class AnthropicHttp extends SdkHttp<HttpResponse> {

    AnthropicHttp(AnthropicFailures failures) {
        super(HttpClient.class, failures);
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

    @Override
    protected HttpResponse withBody(HttpResponse response, InputStream body) {
        return new WithBody(response, body);
    }

    /**
     * A response with another body, the original's in all else. A class rather than a proxy: the SDK
     * calls its methods on every exchange; an abstract method a later SDK adds would fail here as in the
     * other classes of this package, which are compiled against the SDK version named above.
     */
    private record WithBody(HttpResponse original, InputStream body) implements HttpResponse {

        @Override
        public int statusCode() {
            return this.original.statusCode();
        }

        @Override
        public Headers headers() {
            return this.original.headers();
        }

        @Override
        public void close() {
            this.original.close();
        }
    }
}
