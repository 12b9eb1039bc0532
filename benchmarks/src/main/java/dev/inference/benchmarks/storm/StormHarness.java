package dev.inference.benchmarks.storm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.boot.convert.DurationStyle;

/**
 * The retry storm: a {@link StormProvider} that admits {@code capacity} requests per window is called
 * at {@code load} times that rate for {@code seconds}, by the same open-loop callers (one call started
 * every 1/rate seconds, whatever the earlier calls are doing) through each {@link Contender} in turn, on
 * {@code instances} application instances that the callers take in turn. A contender's run ends when
 * its last call has ended, or {@code drain} after its last call started (calls still waiting then are
 * counted as such). Prints one Markdown table, and writes the chart ({@link StormChart}).
 *
 * <p>Run from the benchmark jar: {@code java -cp benchmarks/target/benchmarks.jar
 * dev.inference.benchmarks.storm.StormHarness [--seconds 60] [--capacity 20] [--window 2s] [--load 1.5]
 * [--instances 3] [--drain 330s] [--contenders STARTER,STARTER_REDIS,...] [--chart docs/storm.svg]
 * [--redis-server redis-server]}.
 *
 * <p>Trap: the contenders run one after the other in one JVM (each on a fresh provider window and fresh
 * applications), so the later ones find a JIT warmer; a few calls per instance before each run, within
 * the provider's capacity and not counted, take the first-call costs out.
 */
public final class StormHarness {

    private StormHarness() {
    }

    /**
     * Runs the storm through every contender asked for and prints the results.
     *
     * @param args the options described in the class documentation
     * @throws IllegalArgumentException for an unknown option or a bad value
     */
    public static void main(String[] args) {
        Options options = Options.parse(args);
        System.out.printf(Locale.ROOT, "Java %s, %d processors, load average %.2f, %s; %s%n",
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), loadAverage(),
                Instant.now(), options);
        Map<Contender, StormTally.Summary> summaries = new LinkedHashMap<>();
        List<StormChart.Panel> panels = new ArrayList<>();
        try (StormProvider provider = StormProvider.start(options.capacity(), options.window())) {
            for (Contender contender : options.contenders()) {
                StormTally tally = new StormTally();
                double loadBefore = loadAverage();
                StormTally.Summary summary = run(contender, provider, tally, options);
                summaries.put(contender, summary);
                panels.add(new StormChart.Panel(contender.label(), tally.perSecond()));
                System.out.printf(Locale.ROOT, "%s: done, load average %.2f before, %.2f after%n", contender.label(),
                        loadBefore, loadAverage());
            }
        }
        System.out.println();
        System.out.print(table(summaries));
        System.out.println();
        System.out.print(verdict(summaries));
        if (options.chart() != null) {
            write(options.chart(), StormChart.svg(panels, options.capacity() / (options.window().toMillis() / 1000.0)));
            System.out.println("Chart written to " + options.chart());
        }
    }

    private static StormTally.Summary run(Contender contender, StormProvider provider, StormTally tally,
            Options options) {
        RedisServer redis = contender.redis() ? RedisServer.start(options.redisServer()) : null;
        try (StormInstances instances = StormInstances.start(contender, options.instances(), provider.baseUrl(),
                (redis != null) ? redis.port() : 0)) {
            warmUp(instances);
            // Lets the warm-up's window and any cool-down it set pass before the run's first window.
            LockSupport.parkNanos(options.window().toNanos() * 2);
            return drive(instances, provider, tally, options);
        }
        finally {
            if (redis != null) {
                redis.close();
            }
        }
    }

    private static void warmUp(StormInstances instances) {
        for (int i = 0; i < instances.size(); i++) {
            ChatResponse response = instances.call(i).get();
            if (!answered(response)) {
                throw new IllegalStateException("Unexpected answer in the warm-up: " + response);
            }
        }
    }

    private static StormTally.Summary drive(StormInstances instances, StormProvider provider, StormTally tally,
            Options options) {
        double perSecond = options.capacity() / (options.window().toNanos() / 1e9) * options.load();
        int calls = (int) Math.round(perSecond * options.seconds());
        long period = Math.round(1e9 / perSecond);
        ExecutorService callers = Executors.newCachedThreadPool((task) -> {
            Thread thread = new Thread(task, "storm-caller");
            thread.setDaemon(true);
            return thread;
        });
        long start = provider.begin(tally);
        for (int n = 0; n < calls; n++) {
            long due = start + n * period;
            for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                LockSupport.parkNanos(wait);
            }
            int caller = n;
            callers.execute(() -> {
                long began = System.nanoTime();
                try {
                    ChatResponse response = instances.call(caller).get();
                    if (!answered(response)) {
                        throw new IllegalStateException("Unexpected answer: " + response);
                    }
                    tally.answered(System.nanoTime() - began);
                }
                catch (RuntimeException ex) {
                    tally.failed(ex, System.nanoTime() - began);
                }
            });
        }
        callers.shutdown();
        try {
            callers.awaitTermination(options.drain().toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        tally.close();
        callers.shutdownNow();
        return tally.summary(calls);
    }

    private static boolean answered(ChatResponse response) {
        Generation result = response.getResult();
        return result != null && "Hello!".equals(result.getOutput().getText());
    }

    /**
     * Formats the results as a Markdown table, one row per contender.
     *
     * @param summaries each contender's totals, in the order run
     * @return the table
     */
    static String table(Map<Contender, StormTally.Summary> summaries) {
        StringBuilder table = new StringBuilder();
        table.append("| contender | calls | answered | failed (why) | provider's requests | its 429s | its successes "
                + "| p50 answered | p99 answered | longest call |\n");
        table.append("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
        summaries.forEach((contender, summary) -> table.append(String.format(Locale.ROOT,
                "| %s | %d | %d | %s | %d | %d | %d | %s | %s | %s |%n", contender.label(), summary.calls(),
                summary.answered(), failures(summary), summary.requests(), summary.refused(), summary.successes(),
                millis(summary.p50Nanos()), millis(summary.p99Nanos()), millis(summary.longestNanos()))));
        return table.toString();
    }

    /**
     * Says how the starter with Redis did against the goal: at least as many calls answered as the best
     * peer, at least 80% fewer 429s than any peer, no call longer than the five-minute cap.
     *
     * @param summaries each contender's totals
     * @return one line per part of the goal, or a note when the Redis store or every peer was not run
     */
    static String verdict(Map<Contender, StormTally.Summary> summaries) {
        StormTally.Summary redis = summaries.get(Contender.STARTER_REDIS);
        List<Map.Entry<Contender, StormTally.Summary>> peers = summaries.entrySet()
            .stream()
            .filter((entry) -> entry.getKey() != Contender.STARTER && entry.getKey() != Contender.STARTER_REDIS)
            .toList();
        if (redis == null || peers.isEmpty()) {
            return "Goal not judged: it needs the Redis store and at least one peer.\n";
        }
        Map.Entry<Contender, StormTally.Summary> best = peers.stream()
            .max((a, b) -> Integer.compare(a.getValue().answered(), b.getValue().answered()))
            .orElseThrow();
        Map.Entry<Contender, StormTally.Summary> fewest = peers.stream()
            .min((a, b) -> Long.compare(a.getValue().refused(), b.getValue().refused()))
            .orElseThrow();
        double saved = (fewest.getValue().refused() == 0) ? 0
                : 100.0 * (fewest.getValue().refused() - redis.refused()) / fewest.getValue().refused();
        boolean answered = redis.answered() >= best.getValue().answered();
        boolean quiet = saved >= 80;
        boolean capped = redis.longestNanos() <= Duration.ofMinutes(5).toNanos();
        return String.format(Locale.ROOT,
                "- answered: %d against %d for the best peer (%s): %s%n"
                        + "- 429s: %d against %d for the peer with the fewest (%s), %.0f%% fewer: %s%n"
                        + "- longest call: %s against the cap of 5 minutes: %s%n",
                redis.answered(), best.getValue().answered(), best.getKey().label(), met(answered), redis.refused(),
                fewest.getValue().refused(), fewest.getKey().label(), saved, met(quiet),
                millis(redis.longestNanos()), met(capped));
    }

    private static String met(boolean met) {
        return met ? "met" : "NOT met";
    }

    private static String failures(StormTally.Summary summary) {
        if (summary.failed().isEmpty()) {
            return "0";
        }
        return summary.failedCalls() + ": " + summary.failed()
            .entrySet()
            .stream()
            .map((entry) -> entry.getValue() + " " + entry.getKey())
            .collect(Collectors.joining(", "));
    }

    static String millis(long nanos) {
        double millis = nanos / 1e6;
        if (millis >= 10_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000);
        }
        return String.format(Locale.ROOT, "%.0f ms", millis);
    }

    private static void write(Path path, String content) {
        try {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(path, content, StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot write " + path, ex);
        }
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /**
     * The harness's options.
     *
     * @param seconds how long the callers start calls
     * @param capacity the provider's requests per window
     * @param window the provider's window
     * @param load the callers' rate as a multiple of the provider's capacity
     * @param instances the application instances per contender
     * @param drain how long a run waits for its calls after the last one started
     * @param contenders which run, in order
     * @param chart where the chart is written, or {@code null} for nowhere
     * @param redisServer the {@code redis-server} program
     */
    record Options(int seconds, int capacity, Duration window, double load, int instances, Duration drain,
            List<Contender> contenders, @Nullable Path chart, String redisServer) {

        Options {
            if (seconds < 1 || capacity < 1 || load <= 0 || instances < 1 || window.isNegative() || window.isZero()
                    || drain.isNegative() || contenders.isEmpty()) {
                throw new IllegalArgumentException("Every number must be positive and a contender named: " + this);
            }
        }

        /**
         * Reads the options.
         *
         * @param args {@code --name value} pairs
         * @return the options, defaults for those not given
         * @throws IllegalArgumentException for an unknown option, a missing value or a bad one
         */
        static Options parse(String[] args) {
            Map<String, String> given = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i += 2) {
                if (!args[i].startsWith("--") || i + 1 >= args.length) {
                    throw new IllegalArgumentException("Expected --name value pairs, got " + Arrays.toString(args));
                }
                given.put(args[i].substring(2), args[i + 1]);
            }
            List<String> known = List.of("seconds", "capacity", "window", "load", "instances", "drain", "contenders",
                    "chart", "redis-server");
            for (String name : given.keySet()) {
                if (!known.contains(name)) {
                    throw new IllegalArgumentException("Unknown option --" + name + "; known: " + known);
                }
            }
            List<Contender> contenders = given.containsKey("contenders")
                    ? Arrays.stream(given.get("contenders").split(",")).map(String::trim).map(Contender::valueOf).toList()
                    : List.of(Contender.values());
            String chart = given.get("chart");
            return new Options(Integer.parseInt(given.getOrDefault("seconds", "60")),
                    Integer.parseInt(given.getOrDefault("capacity", "20")),
                    duration(given.getOrDefault("window", "2s")), Double.parseDouble(given.getOrDefault("load", "1.5")),
                    Integer.parseInt(given.getOrDefault("instances", "3")),
                    duration(given.getOrDefault("drain", "330s")), contenders, (chart != null) ? Path.of(chart) : null,
                    given.getOrDefault("redis-server", "redis-server"));
        }

        private static Duration duration(String value) {
            return DurationStyle.detectAndParse(value);
        }
    }
}
