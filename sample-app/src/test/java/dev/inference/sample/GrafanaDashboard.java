package dev.inference.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Grafana dashboard that the repository ships, {@code docs/grafana/inference-retry.json}, read as
 * Grafana's dashboard JSON model.
 */
final class GrafanaDashboard {

    /** Where the dashboard lives, from the repository's root. */
    static final Path LOCATION = Path.of("docs", "grafana", "inference-retry.json");

    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.*),\\s*\\w+\\s*\\)", Pattern.DOTALL);

    private static final Pattern LABEL_VALUES_OF_ANY_METRIC = Pattern.compile("label_values\\(\\s*\\w+\\s*\\)");

    private static final Pattern QUERY_RESULT = Pattern.compile("query_result\\((.*)\\)", Pattern.DOTALL);

    /** A PromQL expression of the dashboard and where it is used, such as {@code panel 'Retry ratio' A}. */
    record Query(String where, String expression) {
    }

    private final JsonNode json;

    private GrafanaDashboard(JsonNode json) {
        this.json = json;
    }

    /**
     * Reads the dashboard from the repository that holds the working directory (the module's
     * directory under Maven, the root in an IDE).
     */
    static GrafanaDashboard load() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path file = dir.resolve(LOCATION);
            if (Files.isRegularFile(file)) {
                return new GrafanaDashboard(JsonMapper.builder().build().readTree(file.toFile()));
            }
        }
        throw new IllegalStateException("No " + LOCATION + " in " + Path.of("").toAbsolutePath() + " or above");
    }

    /** The whole JSON model. */
    JsonNode json() {
        return this.json;
    }

    /** The template variable with this name. */
    Optional<JsonNode> variable(String name) {
        return this.json.path("templating").path("list").valueStream()
                .filter((variable) -> name.equals(variable.path("name").asString()))
                .findFirst();
    }

    /** Every panel, those inside collapsed rows included. */
    List<JsonNode> panels() {
        List<JsonNode> panels = new ArrayList<>();
        for (JsonNode panel : this.json.path("panels").values()) {
            panels.add(panel);
            panels.addAll(panel.path("panels").values());
        }
        return panels;
    }

    /**
     * Every PromQL expression: the {@code expr} of each panel's targets, and the series each query
     * variable reads its values from.
     *
     * @throws IllegalStateException for a query variable whose query this reading does not understand
     */
    List<Query> queries() {
        List<Query> queries = new ArrayList<>();
        for (JsonNode panel : panels()) {
            for (JsonNode target : panel.path("targets").values()) {
                if (target.has("expr")) {
                    queries.add(new Query("panel '" + panel.path("title").asString() + "' "
                            + target.path("refId").asString(), target.path("expr").asString()));
                }
            }
        }
        for (JsonNode variable : this.json.path("templating").path("list").values()) {
            if ("query".equals(variable.path("type").asString())) {
                JsonNode query = variable.path("query");
                String text = query.isObject() ? query.path("query").asString() : query.asString();
                variableExpression(text).ifPresent((expression) -> queries.add(
                        new Query("variable '" + variable.path("name").asString() + "'", expression)));
            }
        }
        return queries;
    }

    private static Optional<String> variableExpression(String query) {
        Matcher labelValues = LABEL_VALUES.matcher(query.strip());
        if (labelValues.matches()) {
            return Optional.of(labelValues.group(1));
        }
        if (LABEL_VALUES_OF_ANY_METRIC.matcher(query.strip()).matches()) {
            return Optional.empty();
        }
        Matcher queryResult = QUERY_RESULT.matcher(query.strip());
        if (queryResult.matches()) {
            return Optional.of(queryResult.group(1));
        }
        throw new IllegalStateException("Cannot read the metrics of the variable query '" + query
                + "': only label_values(...) and query_result(...) are understood");
    }

    /** Each metric name the dashboard's queries use, with where it is used; sorted by name. */
    SortedMap<String, SortedSet<String>> metricNames() {
        SortedMap<String, SortedSet<String>> names = new TreeMap<>();
        for (Query query : queries()) {
            for (String name : PromQl.metricNames(query.expression())) {
                names.computeIfAbsent(name, (key) -> new TreeSet<>()).add(query.where());
            }
        }
        return names;
    }
}
