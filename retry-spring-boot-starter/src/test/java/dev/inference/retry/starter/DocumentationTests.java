package dev.inference.retry.starter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inference.retry.autoconfigure.MeterRetryListener;
import dev.inference.retry.autoconfigure.fallback.FallbackMeterListener;
import dev.inference.retry.autoconfigure.observation.DefaultRetryAttemptObservationConvention;
import dev.inference.retry.autoconfigure.observation.ObservationAttemptObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The documentation ({@code README.md}, {@code CONTRIBUTING.md} and the pages under {@code docs/}) leads
 * where it says and names what exists: every relative link and anchor resolves, every
 * {@code inference.retry.*} name is a property of the starter's configuration metadata or one of its
 * meters and observations, and every {@code spring.ai.*} name is in Spring AI's metadata.
 *
 * <p>Names are found everywhere in a page, code and YAML blocks included, except where they are part of
 * a longer dotted name (the package {@code dev.inference.retry}) or a {@code -D} switch of the build
 * (such as {@code -Dinference.retry.redis.required}).
 */
class DocumentationTests {

    private static final String ROOT_PROPERTY = "inference.retry.docs.root";

    private static final Pattern INFERENCE_RETRY_NAME = dottedName("inference\\.retry");

    private static final Pattern SPRING_AI_NAME = dottedName("spring\\.ai");

    private static final ConfigurationMetadata metadata = metadata();

    @Test
    void readsTheReadmeAndTheDocsPages() {
        assertThat(pageFiles().stream().map((page) -> root().relativize(page).toString().replace('\\', '/')))
            .contains("README.md")
            .anyMatch((page) -> page.startsWith("docs/"));
    }

    @Test
    void readsTheMetadataOfTheStarterAndOfSpringAi() {
        assertThat(metadata.knows("inference.retry.max-attempts")).isTrue();
        assertThat(metadata.knows("spring.ai.openai.chat.max-retries")).isTrue();
    }

    @Nested
    class Links {

        @ForEachPage
        void everyRelativeLinkNamesAFileOfTheRepository(MarkdownPage page) {
            List<String> broken = new ArrayList<>();
            for (MarkdownPage.Link link : page.links()) {
                String file = file(link.target());
                if (!isExternal(link.target()) && !file.isEmpty() && !Files.exists(resolve(page, file))) {
                    broken.add(where(page, link.line()) + link.target() + ": no such file");
                }
            }
            assertThat(broken).isEmpty();
        }

        @ForEachPage
        void everyAnchorNamesAHeadingOfThePageItLinksTo(MarkdownPage page) throws IOException {
            List<String> broken = new ArrayList<>();
            for (MarkdownPage.Link link : page.links()) {
                String target = link.target();
                int hash = target.indexOf('#');
                if (isExternal(target) || hash < 0) {
                    continue;
                }
                String file = file(target);
                Path linked = file.isEmpty() ? page.path() : resolve(page, file);
                if (linked.toString().endsWith(".md") && Files.isRegularFile(linked)
                        && !MarkdownPage.read(linked).anchors().contains(target.substring(hash + 1))) {
                    broken.add(where(page, link.line()) + target + ": " + root().relativize(linked)
                            + " has no heading with that anchor");
                }
            }
            assertThat(broken).isEmpty();
        }

        private static boolean isExternal(String target) {
            return target.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*");
        }

        private static String file(String target) {
            int hash = target.indexOf('#');
            return URLDecoder.decode(((hash < 0) ? target : target.substring(0, hash)).replace("+", "%2B"),
                    StandardCharsets.UTF_8);
        }

        private static Path resolve(MarkdownPage page, String file) {
            return page.path().getParent().resolve(file).normalize();
        }
    }

    @Nested
    class Properties {

        @ForEachPage
        void everyInferenceRetryNameIsAPropertyAMeterOrAnObservation(MarkdownPage page) {
            Set<String> meters = meterAndObservationNames();

            assertThat(unknown(page, INFERENCE_RETRY_NAME, "inference.retry.", meters))
                .as("names neither in the configuration metadata nor among the meters and observations of %s",
                        meters)
                .isEmpty();
        }

        @ForEachPage
        void everySpringAiNameIsAPropertyOfSpringAi(MarkdownPage page) {
            assertThat(unknown(page, SPRING_AI_NAME, "spring.ai.", Set.of()))
                .as("names not in the configuration metadata of the Spring AI modules on this module's test class path")
                .isEmpty();
        }

        private static List<String> unknown(MarkdownPage page, Pattern pattern, String prefix, Set<String> others) {
            List<String> unknown = new ArrayList<>();
            for (MarkdownPage.Name name : page.names(pattern)) {
                if (!others.contains(name.name()) && !metadata.knows(name.name())) {
                    unknown.add(where(page, name.line()) + name.name());
                }
            }
            for (MarkdownPage.YamlBlock block : page.yamlBlocks()) {
                for (String key : keys(block)) {
                    if (key.startsWith(prefix) && !metadata.knows(key)) {
                        unknown.add(where(page, block.line()) + key + " (YAML)");
                    }
                }
            }
            return unknown;
        }

        /** The full names of the YAML block's leaves. */
        private static List<String> keys(MarkdownPage.YamlBlock block) {
            List<String> keys = new ArrayList<>();
            for (Object document : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(block.text())) {
                flatten("", document, keys);
            }
            return keys;
        }

        private static void flatten(String prefix, Object value, List<String> keys) {
            if (value instanceof Map<?, ?> map && !map.isEmpty()) {
                map.forEach((key, child) -> flatten(prefix.isEmpty() ? String.valueOf(key) : prefix + "." + key, child,
                        keys));
            }
            else {
                keys.add(prefix);
            }
        }

        /** The meter and observation names that the starter's public constants give. */
        private static Set<String> meterAndObservationNames() {
            Set<String> names = new TreeSet<>();
            for (Class<?> type : List.of(MeterRetryListener.class, FallbackMeterListener.class,
                    DefaultRetryAttemptObservationConvention.class, ObservationAttemptObserver.class)) {
                for (Field field : type.getFields()) {
                    if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                        String value = (String) constant(field);
                        if (value.startsWith("inference.retry.")) {
                            names.add(value);
                        }
                    }
                }
            }
            return names;
        }

        private static Object constant(Field field) {
            try {
                return Objects.requireNonNull(field.get(null));
            }
            catch (IllegalAccessException ex) {
                throw new IllegalStateException(field + " is not readable", ex);
            }
        }
    }

    /** A test of each page, named by its path in the repository. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inference.retry.starter.DocumentationTests#pages")
    @interface ForEachPage {
    }

    static Stream<Arguments> pages() throws IOException {
        List<Arguments> pages = new ArrayList<>();
        for (Path page : pageFiles()) {
            pages.add(Arguments.of(Named.of(root().relativize(page).toString(), MarkdownPage.read(page))));
        }
        return pages.stream();
    }

    private static List<Path> pageFiles() {
        Path root = root();
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
        if (Files.exists(root.resolve("CONTRIBUTING.md"))) {
            pages.add(root.resolve("CONTRIBUTING.md"));
        }
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return pages;
    }

    private static Path root() {
        String root = System.getProperty(ROOT_PROPERTY);
        if (root == null) {
            throw new IllegalStateException("The system property " + ROOT_PROPERTY
                    + " is not set: it names the directory of README.md (the module's POM sets it for Surefire)");
        }
        return Path.of(root).toAbsolutePath().normalize();
    }

    private static String where(MarkdownPage page, int line) {
        return root().relativize(page.path()) + ":" + line + ": ";
    }

    /** A dotted name under {@code prefix}, whose segments may be placeholders ({@code <bean>}) or {@code *}. */
    private static Pattern dottedName(String prefix) {
        return Pattern.compile("(?<![\\w.])" + prefix + "(?:\\.(?:[A-Za-z0-9_-]+|<[A-Za-z0-9_-]+>|\\*))+");
    }

    private static ConfigurationMetadata metadata() {
        try {
            return ConfigurationMetadata.onClassPath();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
