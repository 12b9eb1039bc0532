package dev.inference.retry.autoconfigure.settings;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The configuration metadata that the configuration processor generated for IDEs.
 */
class InferenceRetryPropertiesTests {

    private static DocumentContext metadata() throws IOException {
        try (InputStream json = InferenceRetryPropertiesTests.class.getClassLoader()
            .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(json).as("generated metadata").isNotNull();
            return JsonPath.parse(json);
        }
    }

    @Test
    void describesEveryPropertyWithItsType() throws IOException {
        List<Map<String, Object>> properties = metadata()
            .read("$.properties[?(@.sourceType == 'dev.inference.retry.autoconfigure.settings.InferenceRetryProperties')]");
        assertThat(properties).extracting((property) -> property.get("name") + ": " + property.get("type"))
            .containsExactlyInAnyOrder("inference.retry.enabled: java.lang.Boolean",
                    "inference.retry.stable-retries: java.lang.Integer",
                    "inference.retry.stable-delay: java.time.Duration",
                    "inference.retry.max-attempts: java.lang.Integer", "inference.retry.max-delay: java.time.Duration",
                    "inference.retry.attempt-timeout: java.time.Duration",
                    "inference.retry.first-token-timeout: java.time.Duration",
                    "inference.retry.stream-idle-timeout: java.time.Duration",
                    "inference.retry.clients: java.util.Map<java.lang.String,"
                            + "dev.inference.retry.autoconfigure.settings.InferenceRetryProperties$Client>",
                    "inference.retry.fallbacks: java.util.Map<java.lang.String,"
                            + "dev.inference.retry.autoconfigure.settings.FallbackChainProperties>");
        assertThat(properties).allSatisfy((property) -> assertThat((String) property.get("description")).isNotBlank()
            .doesNotStartWith("The ")
            .doesNotStartWith("A "));
    }

    @Test
    void describesTheClientsMapAndItsKeys() throws IOException {
        DocumentContext metadata = metadata();
        assertThat(metadata.<List<String>>read("$.properties[?(@.name == 'inference.retry.clients')].description"))
            .containsExactly("Per-client settings, keyed by the name of an InferenceClient or Spring AI ChatModel "
                    + "bean: enabled, stable-retries, stable-delay, max-attempts, max-delay, attempt-timeout, "
                    + "first-token-timeout and stream-idle-timeout, each overriding the top-level value.");
        assertThat(metadata.<List<String>>read(
                "$.hints[?(@.name == 'inference.retry.clients.keys')].providers[0].parameters.target"))
            .containsExactly("dev.inference.client.InferenceClient");
    }

    @Test
    void describesTheFallbacksMapWithEveryKeyOfAChain() throws IOException {
        // The processor describes a map of JavaBeans by the map alone: its description names the keys below it.
        List<String> descriptions = metadata()
            .read("$.properties[?(@.name == 'inference.retry.fallbacks')].description");

        assertThat(descriptions).singleElement().asString()
            .contains("members", "primary", "skip-after", "skip-for", "models.<member>");
    }

    @Test
    void givesOnlyTheSwitchesADefault() throws IOException {
        List<Map<String, Object>> properties = metadata().read("$.properties[*]");
        assertThat(properties)
            .filteredOn((property) -> ((String) property.get("name")).startsWith("inference.retry.")
                    && property.containsKey("defaultValue"))
            .extracting((property) -> property.get("name") + " = " + property.get("defaultValue"))
            .containsExactlyInAnyOrder("inference.retry.enabled = true", "inference.retry.observations.enabled = false",
                    "inference.retry.spring-ai.enabled = true", "inference.retry.cooldown.rate-limit-headers = true");
    }
}
