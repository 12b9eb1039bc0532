package dev.inference.sample;

import dev.inference.client.Authorizer;
import dev.inference.client.InferenceClient;
import dev.inference.sample.openai.OpenAiCompatibleClient;
import dev.inference.sample.provider.FaultMix;
import dev.inference.sample.provider.FlakyProvider;
import dev.inference.sample.provider.RateLimit;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StringUtils;

/**
 * Wires the sample's one {@link InferenceClient}, named {@code openai}, to the embedded provider or
 * to {@code sample.inference.base-url}. The retry starter then wraps it in a retry decorator.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({ SampleInferenceProperties.class, SampleProviderProperties.class })
class SampleConfiguration {

    @Bean(destroyMethod = "close")
    @Conditional(OnEmbeddedProviderCondition.class)
    FlakyProvider flakyProvider(SampleProviderProperties properties) {
        FaultMix faults;
        try {
            faults = properties.getFaults().toFaultMix();
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalStateException("Invalid sample.provider.faults: " + ex.getMessage(), ex);
        }
        int port = properties.getPort();
        if (port < 0 || port > 65535) {
            throw new IllegalStateException("Invalid sample.provider.port: " + port
                    + " is not a port; set one from 1 to 65535, or 0 for any free port");
        }
        RateLimit rateLimit;
        try {
            rateLimit = properties.getRateLimit().toRateLimit();
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalStateException("Invalid sample.provider.rate-limit: " + ex.getMessage(), ex);
        }
        Duration slowDelay = properties.getSlowDelay();
        if (slowDelay == null || slowDelay.toMillis() < 1) {
            throw new IllegalStateException("Invalid sample.provider.slow-delay: " + slowDelay
                    + " is shorter than a millisecond; set a positive duration such as 60s");
        }
        FlakyProvider provider = FlakyProvider.start(faults, properties.getSeed(), properties.getRetryAfter(), port,
                rateLimit, slowDelay);
        provider.setOpenAiDown(properties.isOpenaiDown());
        return provider;
    }

    @Bean
    Authorizer inferenceAuthorizer(SampleInferenceProperties properties) {
        String apiKey = properties.getApiKey();
        return StringUtils.hasText(apiKey) ? new BearerTokenAuthorizer(apiKey.strip()) : Authorizer.none();
    }

    @Bean
    HttpClient inferenceHttpClient(SampleInferenceProperties properties) {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(properties.getConnectTimeout())
                .build();
    }

    // Declared as InferenceClient: the retry starter replaces the bean with a decorator of that type.
    @Bean
    InferenceClient openai(SampleInferenceProperties properties, HttpClient inferenceHttpClient,
            ObjectProvider<FlakyProvider> embedded) {
        OpenAiCompatibleClient.Builder builder = OpenAiCompatibleClient.builder(baseUrl(properties, embedded))
                .httpClient(inferenceHttpClient);
        if (properties.getResponseTimeout() != null) {
            builder.responseTimeout(properties.getResponseTimeout());
        }
        return builder.build();
    }

    /**
     * Returns the base URL of the sample's provider, the part before {@code /v1/chat/completions}: the
     * configured one, or else the embedded provider's, which this starts if it has not yet started.
     *
     * @throws IllegalStateException if neither is there
     */
    static URI baseUrl(SampleInferenceProperties properties, ObjectProvider<FlakyProvider> embedded) {
        URI configured = properties.getBaseUrl();
        if (configured != null && StringUtils.hasText(configured.toString())) {
            return configured;
        }
        FlakyProvider provider = embedded.getIfAvailable();
        if (provider == null) {
            throw new IllegalStateException("No inference provider: set sample.inference.base-url to an "
                    + "OpenAI-compatible endpoint, or leave sample.provider.enabled true to use the embedded one");
        }
        return provider.baseUrl();
    }
}
