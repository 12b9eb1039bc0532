package dev.inference.retry.starter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.retry.autoconfigure.InferenceRetryAutoConfiguration;
import dev.inference.retry.springai.autoconfigure.SpringAiRetryAutoConfiguration;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every auto-configuration the starter brings is described in the
 * {@code META-INF/spring-autoconfigure-metadata.properties} of its own jar, which
 * {@code spring-boot-autoconfigure-processor} writes: Spring Boot reads the conditions there and leaves an
 * auto-configuration out without loading its class. Under {@code verify} the class path holds the
 * modules' jars, so the jars themselves are checked; run alone, their class directories.
 */
class AutoConfigurationMetadataTests {

    private static final String IMPORTS = "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";

    private static final String METADATA = "META-INF/spring-autoconfigure-metadata.properties";

    @ParameterizedTest(name = "{0}")
    @MethodSource("autoConfigurations")
    void everyAutoConfigurationIsDescribedInTheMetadataOfItsJar(String autoConfiguration, URI imports) {
        URI metadata = URI.create(imports.toString().replace(IMPORTS, METADATA));

        assertThat(load(metadata)).as("%s, written by spring-boot-autoconfigure-processor", metadata)
            .containsKey(autoConfiguration);
    }

    @Test
    void findsTheAutoConfigurationsOfBothModules() throws IOException {
        assertThat(autoConfigurations().map((arguments) -> arguments.get()[0]))
            .contains(InferenceRetryAutoConfiguration.class.getName(), SpringAiRetryAutoConfiguration.class.getName());
    }

    /** The project's auto-configurations, each with the imports file of the jar that lists it. */
    static Stream<Arguments> autoConfigurations() throws IOException {
        List<Arguments> found = new ArrayList<>();
        ClassLoader classLoader = AutoConfigurationMetadataTests.class.getClassLoader();
        for (URL imports : Collections.list(classLoader.getResources(IMPORTS))) {
            URI uri = toUri(imports);
            read(uri).lines()
                .map(String::strip)
                .filter((line) -> line.startsWith("dev.inference."))
                .forEach((autoConfiguration) -> found.add(Arguments.of(autoConfiguration, uri)));
        }
        return found.stream();
    }

    /** The properties at {@code uri}, none when there is no such file. */
    private static Properties load(URI uri) {
        Properties properties = new Properties();
        try (InputStream in = uri.toURL().openStream()) {
            properties.load(in);
        }
        catch (FileNotFoundException absent) {
            // Asserted on by the caller: an empty metadata describes nothing.
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return properties;
    }

    private static String read(URI uri) throws IOException {
        try (InputStream in = uri.toURL().openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static URI toUri(URL url) {
        try {
            return url.toURI();
        }
        catch (URISyntaxException ex) {
            throw new IllegalStateException(url + " is not a URI", ex);
        }
    }
}
