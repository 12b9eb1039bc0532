package dev.inference.sample;

import java.net.URI;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * How the sample calls its inference provider.
 */
@ConfigurationProperties("sample.inference")
public class SampleInferenceProperties {

    /**
     * Base URL of an OpenAI-compatible provider, such as https://api.example.com; when set, the
     * embedded provider is not started.
     */
    private @Nullable URI baseUrl;

    /**
     * API key sent as a bearer token with every attempt; empty for none.
     */
    private @Nullable String apiKey;

    /**
     * Model to ask.
     */
    private String model = "gpt-4o-mini";

    /**
     * Deadline of each chat call, shared by all of its attempts and waits.
     */
    private Duration timeout = Duration.ofSeconds(30);

    /**
     * How long to wait for a connection to the provider.
     */
    private Duration connectTimeout = Duration.ofSeconds(5);

    /**
     * How long one attempt waits for the response headers before it fails and may be retried;
     * unset for no limit but the call's deadline.
     */
    private @Nullable Duration responseTimeout;

    public @Nullable URI getBaseUrl() {
        return this.baseUrl;
    }

    public void setBaseUrl(@Nullable URI baseUrl) {
        this.baseUrl = baseUrl;
    }

    public @Nullable String getApiKey() {
        return this.apiKey;
    }

    public void setApiKey(@Nullable String apiKey) {
        this.apiKey = apiKey;
    }

    public String getModel() {
        return this.model;
    }

    public void setModel(String model) {
        this.model = model;
    }

    public Duration getTimeout() {
        return this.timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public Duration getConnectTimeout() {
        return this.connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public @Nullable Duration getResponseTimeout() {
        return this.responseTimeout;
    }

    public void setResponseTimeout(@Nullable Duration responseTimeout) {
        this.responseTimeout = responseTimeout;
    }
}
