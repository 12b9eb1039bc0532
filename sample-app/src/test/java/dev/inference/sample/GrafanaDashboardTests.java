package dev.inference.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.inference.sample.provider.Outcome;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The Grafana dashboard of {@code docs/grafana}: importable with a choice of Prometheus data source,
 * filtered by application and client, and honest: every series its queries read is one that the
 * running sample exports at {@code /actuator/prometheus}, so renaming a meter fails the build.
 */
class GrafanaDashboardTests {

    private final GrafanaDashboard dashboard = GrafanaDashboard.load();

    @Nested
    class Importing {

        @Test
        void asksForAPrometheusDataSource() {
            assertThat(dashboard.json().path("__inputs").values()).singleElement().satisfies((input) -> {
                assertThat(input.path("name").asString()).isEqualTo("DS_PROMETHEUS");
                assertThat(input.path("type").asString()).isEqualTo("datasource");
                assertThat(input.path("pluginId").asString()).isEqualTo("prometheus");
            });
        }

        @Test
        void startsOnTheDataSourceChosenAtImport() {
            assertThat(dashboard.variable("datasource")).get()
                    .extracting((variable) -> variable.path("current").path("value").asString())
                    .isEqualTo("${DS_PROMETHEUS}");
        }

        @Test
        void everyPanelAndQueryReadsTheDataSourceVariable() {
            Stream<JsonNode> users = Stream.concat(dashboard.panels().stream()
                    .flatMap((panel) -> Stream.concat(Stream.of(panel), panel.path("targets").valueStream())),
                    Stream.of("application", "client").map((name) -> dashboard.variable(name).orElseThrow()));

            assertThat(users).allSatisfy((user) -> assertThat(user.path("datasource").path("uid").asString())
                    .isEqualTo("${datasource}"));
        }
    }

    @Nested
    class TemplateVariables {

        @Test
        void datasourceOffersThePrometheusDataSources() {
            assertThat(dashboard.variable("datasource")).get().satisfies((variable) -> {
                assertThat(variable.path("type").asString()).isEqualTo("datasource");
                assertThat(variable.path("query").asString()).isEqualTo("prometheus");
            });
        }

        @Test
        void applicationOffersTheApplicationTagOfTheRetryMeters() {
            assertThat(dashboard.variable("application")).get()
                    .extracting((variable) -> variable.path("definition").asString())
                    .isEqualTo("label_values(inference_retry_exhausted_total, application)");
        }

        @Test
        void clientOffersTheClientsOfTheChosenApplications() {
            assertThat(dashboard.variable("client")).get()
                    .extracting((variable) -> variable.path("definition").asString())
                    .isEqualTo("label_values(inference_retry_exhausted_total{application=~\"$application\"}, client)");
        }

        @ParameterizedTest
        @ValueSource(strings = { "application", "client" })
        void allowsSeveralValuesAndAll(String name) {
            assertThat(dashboard.variable(name)).get().satisfies((variable) -> {
                assertThat(variable.path("multi").asBoolean()).isTrue();
                assertThat(variable.path("includeAll").asBoolean()).isTrue();
                assertThat(variable.path("allValue").asString()).isEqualTo(".*");
            });
        }

        @ParameterizedTest
        @ValueSource(strings = { "application", "client" })
        void definitionIsTheQueryThatRuns(String name) {
            assertThat(dashboard.variable(name)).get().satisfies((variable) -> assertThat(
                    variable.path("query").path("query").asString()).isEqualTo(variable.path("definition").asString()));
        }
    }

    @Nested
    class MetricNamesOfAQuery {

        static Stream<Arguments> expressions() {
            return Stream.of(
                    Arguments.of("a bare metric", "inference_retry_exhausted_total",
                            Set.of("inference_retry_exhausted_total")),
                    Arguments.of("functions, aggregations and label names",
                            "sum by (client, operation) (rate(a_total{client=~\"$client\", error!=\"none\"}[5m]))",
                            Set.of("a_total")),
                    Arguments.of("template variables",
                            "rate(a_total{application=~\"$application\"}[$__rate_interval]) offset ${shift}",
                            Set.of("a_total")),
                    Arguments.of("binary operators, keywords and numbers",
                            "(a_total or b_total * 0) / ignoring(outcome) group_left c_total > bool 1e3 and d unless e",
                            Set.of("a_total", "b_total", "c_total", "d", "e")),
                    Arguments.of("strings", "label_replace(a_total, \"dst\", \"$1\", \"src\", \"(b_total)\")",
                            Set.of("a_total")),
                    Arguments.of("spaces before a parenthesis", "max by (client) (a_seconds_max) / sum (b)",
                            Set.of("a_seconds_max", "b")));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("expressions")
        void areTheSelectedSeriesOnly(String description, String expression, Set<String> names) {
            assertThat(PromQl.metricNames(expression)).isEqualTo(names);
        }

        @Test
        void refuseASelectionByName() {
            assertThatIllegalArgumentException().isThrownBy(() -> PromQl.metricNames("{__name__=~\"inference_.*\"}"))
                    .withMessage("PromQL expression selects by __name__, so the metrics it reads cannot be checked; "
                            + "name the metric instead: {__name__=~\"inference_.*\"}");
        }

        @Test
        void includeTheSeriesOfTheVariables() {
            assertThat(dashboard.metricNames()).containsEntry("inference_retry_exhausted_total", new TreeSet<>(Set.of(
                    "panel 'Exhausted calls per second' A", "variable 'application'", "variable 'client'")));
        }
    }

    @Nested
    @SampleAppTest
    @Import(VirtualTime.class)
    // The budget's and the cool-downs' series exist only where those features are on. A budget this
    // large never refuses, and a 1 ms Retry-After keeps the real-time cool-down out of virtual time.
    @TestPropertySource(properties = { "inference.retry.budget.max-tokens=1000", "inference.retry.budget.token-ratio=1",
            "inference.retry.cooldown.store=local", "sample.provider.retry-after=1ms" })
    class AgainstTheRunningSample extends AgainstTheSample {

        /**
         * Calls that retry and succeed, that exhaust their attempts, a stream that retries, and a call of the
         * fallback chain, whose calls' series exists only once a chain was called.
         */
        private void failAndRetry() throws Exception {
            provider.script(Outcome.RATE_LIMITED, Outcome.SUCCESS);
            http.get("/chat?prompt=hi");
            provider.script(Outcome.UNAVAILABLE, Outcome.UNAVAILABLE, Outcome.UNAVAILABLE, Outcome.UNAVAILABLE);
            http.get("/chat?prompt=hi");
            provider.script(Outcome.DROP, Outcome.SUCCESS);
            http.get("/chat/stream?prompt=hi", "text/event-stream");
            provider.script(Outcome.SUCCESS);
            http.get("/ai/chat?prompt=hi");
        }

        @ParameterizedTest(name = "scraped as {0}")
        @ValueSource(strings = { "text/plain;version=0.0.4", "application/openmetrics-text;version=1.0.0" })
        void exportsEverySeriesTheDashboardQueries(String format) throws Exception {
            failAndRetry();

            HttpResponse<String> scrape = this.http.get("/actuator/prometheus", format);

            assertThat(scrape.statusCode()).isEqualTo(200);
            Set<String> exported = seriesNames(scrape.body());
            SortedMap<String, SortedSet<String>> missing = new TreeMap<>(dashboard.metricNames());
            missing.keySet().removeAll(exported);
            assertThat(missing).as("series that dashboard queries read (and where) but /actuator/prometheus does "
                    + "not export; it exports %s", retrySeries(exported)).isEmpty();
        }

        @Test
        void dashboardQueriesEveryRetrySeriesTheSampleExports() throws Exception {
            failAndRetry();

            Set<String> exported = seriesNames(this.http.get("/actuator/prometheus").body());

            assertThat(dashboard.metricNames().keySet())
                    .as("series that dashboard queries read, to include every retry series the sample exports")
                    .containsAll(retrySeries(exported));
        }
    }

    private static List<String> retrySeries(Set<String> names) {
        return names.stream().filter((name) -> name.startsWith("inference_retry_")).toList();
    }

    /** The name of every sample in a scrape, in Prometheus' text format or OpenMetrics. */
    private static Set<String> seriesNames(String scrape) {
        Set<String> names = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }
}
