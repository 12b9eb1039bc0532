package dev.inference.retry.springai.openai;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.core.http.Headers;
import com.openai.core.http.HttpMethod;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpResponse;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.SseException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.Classification;
import dev.inference.retry.springai.OpenAiWire;
import dev.inference.retry.springai.ScriptedProvider;
import dev.inference.retry.springai.exchange.FirstSseEvent;
import dev.inference.retry.springai.exchange.TypedFailures;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.ai.openai.http.okhttp.SpringAiOpenAiHttpClient;

class OpenAiFailuresTests {

    @RegisterExtension
    static final ScriptedProvider provider = ScriptedProvider.onLoopback();

    @Nested
    class RetryableStatuses {

        @ParameterizedTest(name = "[{index}] {0} {1}")
        @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
                429 | {"error":{"message":"Slow down","type":"requests","param":null,"code":"rate_limit_exceeded"}}
                503 | {"error":{"message":"Busy","type":"server_error","param":null,"code":null}}
                500 | not json
                502 | {"detail":"no error member"}
                408 | ""
                """)
        void areTheExceptionsTheSdkThrowsForTheSameResponse(int status, String body) throws IOException {
            provider.resetAll();
            provider.stubFor(post(urlEqualTo(OpenAiWire.PATH))
                .willReturn(aResponse().withStatus(status).withHeader("x-request-id", "req-1").withBody(body)));
            SpringAiOpenAiHttpClient transport = SpringAiOpenAiHttpClient.builder().build();
            try {
                OpenAIClient plain = new OpenAIClientImpl(ClientOptions.builder().httpClient(transport)
                    .baseUrl("http://127.0.0.1:" + provider.port() + "/v1").apiKey("test").maxRetries(0).build());
                Throwable thrownBySdk = catchThrown(() -> plain.chat().completions().create(params()));

                OpenAIServiceException built;
                try (HttpResponse response = transport.execute(HttpRequest.builder().method(HttpMethod.POST)
                    .baseUrl("http://127.0.0.1:" + provider.port() + "/v1").addPathSegments("chat", "completions").build())) {
                    built = OpenAiFailures.retryableStatusException(response,
                            TypedFailures.status(status, (name) -> TypedFailures.first(response.headers().values(name)),
                                    Clock.systemUTC()));
                }

                assertThat(built).isExactlyInstanceOf(thrownBySdk.getClass()).hasMessage(thrownBySdk.getMessage());
                OpenAIServiceException sdk = (OpenAIServiceException) thrownBySdk;
                assertThat(built.statusCode()).isEqualTo(sdk.statusCode());
                assertThat(built.body()).isEqualTo(sdk.body());
                assertThat(built.type()).isEqualTo(sdk.type());
                assertThat(built.code()).isEqualTo(sdk.code());
                assertThat(built.headers().values("x-request-id")).isEqualTo(sdk.headers().values("x-request-id"));
                assertThat(built.getCause()).isInstanceOfSatisfying(HttpStatusException.class,
                        (typed) -> assertThat(typed.status()).isEqualTo(status));
                assertThat(Classification.isRetryable(built)).isTrue();
            }
            finally {
                transport.close();
            }
        }
    }

    @Nested
    class InBandErrors {

        @ParameterizedTest(name = "[{index}] {0}")
        @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
                {"error":{"message":"m","type":"server_error"}}                            | 500
                {"error":{"message":"m","type":"api_error"}}                               | 500
                {"type":"error","error":{"message":"m","type":"overloaded_error"}}         | 503
                {"error":{"message":"m","type":"overloaded"}}                              | 503
                {"error":{"message":"m","type":"rate_limit_error"}}                        | 429
                {"error":{"message":"m","type":"tokens","code":"rate_limit_exceeded"}}     | 429
                """)
        void ofATransientTypeAreRetryable(String data, int status) {
            SseException failure = OpenAiFailures.inBandFailure(data, okResponse()).orElseThrow();

            assertThat(failure.statusCode()).isEqualTo(200);
            assertThat(failure.getMessage()).isEqualTo("200: m");
            assertThat(failure.getCause()).isInstanceOfSatisfying(HttpStatusException.class,
                    (typed) -> assertThat(typed.status()).isEqualTo(status));
            assertThat(Classification.isRetryable(failure)).isTrue();
        }

        @ParameterizedTest(name = "[{index}] {0}")
        @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
                {"error":{"message":"m","type":"invalid_request_error"}}
                {"error":{"message":"m","type":"insufficient_quota","code":"insufficient_quota"}}
                {"error":"a string"}
                {"error":null}
                """)
        void ofAnyOtherTypeArePermanent(String data) {
            SseException failure = OpenAiFailures.inBandFailure(data, okResponse()).orElseThrow();

            assertThat(failure.getCause()).isNull();
            assertThat(Classification.isRetryable(failure)).isFalse();
        }

        @ParameterizedTest(name = "[{index}] {0}")
        @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
                [DONE]
                {"id":"chatcmpl-1","choices":[]}
                not json
                "a string"
                """)
        void areNotFoundInContent(String data) {
            assertThat(OpenAiFailures.inBandFailure(data, okResponse())).isEmpty();
        }

        @Test
        void areFoundUnderANameSpelledWithAnEscape() {
            String data = "{\"err\\u006fr\":{\"message\":\"m\",\"type\":\"server_error\"}}";

            SseException failure = OpenAiFailures.inBandFailure(data, okResponse()).orElseThrow();

            assertThat(failure.getCause()).isInstanceOfSatisfying(HttpStatusException.class,
                    (typed) -> assertThat(typed.status()).isEqualTo(500));
        }

        @Test
        void areNotFoundInContentThatSpeaksOfAnError() {
            String data = "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"an error occurred\"}}]}";

            assertThat(OpenAiFailures.inBandFailure(data, okResponse())).isEmpty();
        }
    }

    @Nested
    class Preamble {

        @ParameterizedTest(name = "[{index}] {0}")
        @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
                the role and empty content      | {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}  | true
                the role, null content, refusal | {"choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":null}}]}      | true
                content                         | {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]} | false
                a tool call                     | {"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0}]}}]}         | false
                a finish reason                 | {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}                                 | false
                no choices                      | {"choices":[],"usage":{"total_tokens":4}}                                                   | false
                an error                        | {"error":{"type":"server_error"},"choices":[{"index":0,"delta":{"role":"assistant"}}]}     | false
                not json                        | [DONE]                                                                                      | false
                """)
        void isAChunkThatCarriesNoContentYet(String description, String data, boolean preamble) {
            assertThat(new OpenAiFailures().isPreamble(new FirstSseEvent.Event(null, data))).isEqualTo(preamble);
        }
    }

    private static ChatCompletionCreateParams params() {
        return ChatCompletionCreateParams.builder().model("gpt-4o-mini").addUserMessage("Hi").build();
    }

    private static Throwable catchThrown(Runnable call) {
        try {
            call.run();
        }
        catch (RuntimeException ex) {
            return ex;
        }
        throw new AssertionError("The SDK threw nothing");
    }

    private static HttpResponse okResponse() {
        return new HttpResponse() {

            @Override
            public int statusCode() {
                return 200;
            }

            @Override
            public Headers headers() {
                return Headers.builder().put("Content-Type", "text/event-stream").build();
            }

            @Override
            public InputStream body() {
                return new ByteArrayInputStream(new byte[0]);
            }

            @Override
            public void close() {
            }
        };
    }
}
