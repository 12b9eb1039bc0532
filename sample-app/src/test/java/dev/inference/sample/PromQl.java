package dev.inference.sample;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the metric names a PromQL expression selects, as a reviewer would: every identifier that is
 * not a function or aggregation, an operator keyword, a label name (in a matcher or a grouping
 * clause), a string, a number, a duration or a Grafana template variable.
 */
final class PromQl {

    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");

    private static final Pattern TEMPLATE_VARIABLE = Pattern.compile("\\$(?:\\{[^}]*}|\\w+)");

    private static final Pattern LABEL_MATCHERS = Pattern.compile("\\{[^}]*}");

    private static final Pattern RANGE = Pattern.compile("\\[[^]]*]");

    private static final Pattern GROUPING = Pattern.compile(
            "(?i)\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");

    // Possessive, so that "rate(" is skipped whole instead of matching "rat".
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w:.])[a-zA-Z_:][\\w:]*+(?!\\s*\\()");

    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "atan2", "bool", "offset", "by",
            "without", "on", "ignoring", "group_left", "group_right", "inf", "nan");

    private PromQl() {
    }

    /**
     * Returns the metric names that an expression selects, sorted.
     *
     * @param expression a PromQL expression, possibly with Grafana template variables
     * @return the metric names, empty when it selects none
     * @throws IllegalArgumentException when it selects series by {@code __name__}, which names no metric
     *         this reading could check
     */
    static Set<String> metricNames(String expression) {
        if (expression.contains("__name__")) {
            throw new IllegalArgumentException("PromQL expression selects by __name__, so the metrics it reads "
                    + "cannot be checked; name the metric instead: " + expression);
        }
        String rest = STRING.matcher(expression).replaceAll(" ");
        rest = TEMPLATE_VARIABLE.matcher(rest).replaceAll(" ");
        rest = LABEL_MATCHERS.matcher(rest).replaceAll(" ");
        rest = RANGE.matcher(rest).replaceAll(" ");
        rest = GROUPING.matcher(rest).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher identifier = IDENTIFIER.matcher(rest);
        while (identifier.find()) {
            if (!KEYWORDS.contains(identifier.group().toLowerCase(Locale.ROOT))) {
                names.add(identifier.group());
            }
        }
        return names;
    }
}
