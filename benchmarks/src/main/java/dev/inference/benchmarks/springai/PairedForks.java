package dev.inference.benchmarks.springai;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.commons.math3.distribution.TDistribution;

/**
 * Runs {@link SpringAiHarness}'s comparison in JVMs of its own, one after the other, and summarises
 * their paired medians over the forks: each fork's figure, their mean and the mean's 95% confidence
 * interval by Student's t. A stream's paired median is steady within one JVM but moves from one JVM to
 * the next by a µs or two (compiled code, the threads each application got, which application started
 * first), so a cost below that is resolved only over forks, as JMH resolves a mean over its forks.
 *
 * <p>Each fork gets this JVM's options (with a common pool of two threads, see {@link #jvmOptions}) and
 * class path, and the harness's arguments without
 * {@code --forks}; every second one starts the baseline application first ({@code --baseline-first}),
 * because the application started first tends to read slower on a stream. A fork's own tables are
 * printed as it runs; it reports its medians to this JVM on lines of its standard output marked
 * {@value #REPORT}.
 *
 * <p>Trap: the forks run one after the other on purpose; two at once would measure each other.
 */
final class PairedForks {

    /** The option that makes a fork report its medians, and the mark of the lines it reports them on. */
    static final String REPORT = "--fork-report";

    private static final String COMMON_POOL_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

    /** What {@link #report} gives, in its order. */
    static final List<String> METRICS = List.of("successful `call`", "stream's first token", "whole stream");

    private PairedForks() {
    }

    /**
     * Prints one fork's paired medians for the JVM that started it.
     *
     * @param bean the model's bean name
     * @param nanos the paired medians, in nanoseconds, in the order of {@link #METRICS}
     */
    static void report(String bean, long[] nanos) {
        StringBuilder line = new StringBuilder(REPORT).append(' ').append(bean);
        for (long value : nanos) {
            line.append(' ').append(value);
        }
        System.out.println(line);
    }

    /**
     * Runs the forks and prints the summary of each model.
     *
     * @param forks how many, at least 2
     * @param args the harness's arguments, {@code --forks} among them
     * @param beans the models the forks measure, in their order
     * @throws IllegalStateException if a fork fails or does not report every model
     */
    static void run(int forks, String[] args, List<String> beans) {
        List<String> forkArgs = forkArguments(args);
        // Bean → one row of medians per fork.
        Map<String, List<long[]>> medians = new LinkedHashMap<>();
        for (int fork = 0; fork < forks; fork++) {
            boolean baselineFirst = fork % 2 == 1;
            System.out.printf(Locale.ROOT, "%n## Fork %d of %d, %s started first%n%n", fork + 1, forks,
                    baselineFirst ? "the baseline" : "the compared application");
            Map<String, long[]> reported = runFork(forkArgs, baselineFirst);
            for (String bean : beans) {
                long[] row = reported.get(bean);
                if (row == null) {
                    throw new IllegalStateException("Fork " + (fork + 1) + " reported no figures for " + bean);
                }
                medians.computeIfAbsent(bean, (key) -> new ArrayList<>()).add(row);
            }
        }
        medians.forEach((bean, rows) -> print(bean, rows));
    }

    /** A fork's arguments: the harness's without {@code --forks N}, and with {@value #REPORT}. */
    static List<String> forkArguments(String[] args) {
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--forks")) {
                i++;
            }
            else {
                kept.add(args[i]);
            }
        }
        kept.add(REPORT);
        return kept;
    }

    /**
     * Returns a fork's JVM options: this JVM's, and a common pool of two threads unless they set its
     * size. With fewer than three processors the common pool has one thread, and {@code CompletableFuture}'s
     * asynchronous steps then start a thread per task, so the SDKs would start one for every stream, with
     * the timeouts or without, whose start's noise would swamp a microsecond (as in
     * {@link SpringAiPathBenchmark}'s forks).
     */
    static List<String> jvmOptions(List<String> inherited) {
        List<String> options = new ArrayList<>(inherited);
        if (inherited.stream().noneMatch((option) -> option.startsWith("-D" + COMMON_POOL_PARALLELISM + "="))) {
            options.add("-D" + COMMON_POOL_PARALLELISM + "=2");
        }
        return options;
    }

    /** Runs one fork to its end, echoing its output; its medians by bean. */
    private static Map<String, long[]> runFork(List<String> forkArgs, boolean baselineFirst) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions(ManagementFactory.getRuntimeMXBean().getInputArguments()));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(SpringAiHarness.class.getName());
        command.addAll(forkArgs);
        if (baselineFirst) {
            command.add("--baseline-first");
        }
        Map<String, long[]> reported = new LinkedHashMap<>();
        try {
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith(REPORT + " ")) {
                        String[] fields = line.split(" ");
                        reported.put(fields[1],
                                Arrays.stream(fields, 2, fields.length).mapToLong(Long::parseLong).toArray());
                    }
                    else {
                        System.out.println(line);
                    }
                }
            }
            int exit = process.waitFor();
            if (exit != 0) {
                throw new IllegalStateException("A fork exited with " + exit + ": " + String.join(" ", command));
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not run a fork: " + String.join(" ", command), ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while a fork ran", ex);
        }
        return reported;
    }

    /** Prints one model's summary: a row per fork, then the mean with its interval. */
    private static void print(String bean, List<long[]> rows) {
        System.out.printf(Locale.ROOT, "%n%s: paired medians, the compared application's less the baseline's, "
                + "over %d forks%n%n", bean, rows.size());
        System.out.println("| fork | started first | " + String.join(" | ", METRICS) + " |");
        System.out.println("|---|---|" + "---:|".repeat(METRICS.size()));
        for (int fork = 0; fork < rows.size(); fork++) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "| %d | %s |", fork + 1,
                    (fork % 2 == 1) ? "the baseline" : "the compared"));
            for (long nanos : rows.get(fork)) {
                line.append(' ').append(micros(nanos)).append(" |");
            }
            System.out.println(line);
        }
        StringBuilder summary = new StringBuilder("| **mean (95% CI)** | |");
        for (int metric = 0; metric < METRICS.size(); metric++) {
            int column = metric;
            Interval interval = Interval.of(rows.stream().mapToDouble((row) -> row[column]).toArray());
            summary.append(String.format(Locale.ROOT, " **%s** (%s to %s) |", micros(interval.mean()),
                    micros(interval.lower()), micros(interval.upper())));
        }
        System.out.println(summary);
    }

    /**
     * A mean and its 95% confidence interval by Student's t: for the mean of so few forks, the normal's
     * 1.96 would make the interval too narrow.
     *
     * @param mean the mean
     * @param halfWidth how far the interval reaches on each side of the mean
     */
    record Interval(double mean, double halfWidth) {

        /**
         * The interval of independent values.
         *
         * @param values at least two values
         * @return their mean and its interval
         * @throws IllegalArgumentException for fewer than two values
         */
        static Interval of(double[] values) {
            if (values.length < 2) {
                throw new IllegalArgumentException("An interval needs at least two values, was " + values.length);
            }
            double mean = Arrays.stream(values).average().orElseThrow();
            double variance = Arrays.stream(values).map((value) -> (value - mean) * (value - mean)).sum()
                    / (values.length - 1);
            double t = new TDistribution(values.length - 1).inverseCumulativeProbability(0.975);
            return new Interval(mean, t * Math.sqrt(variance / values.length));
        }

        double lower() {
            return this.mean - this.halfWidth;
        }

        double upper() {
            return this.mean + this.halfWidth;
        }
    }

    /** A difference in µs, with a tenth below 10 µs, where the timeouts' cost is read. */
    private static String micros(double nanos) {
        return String.format(Locale.ROOT, (Math.abs(nanos) < 10_000) ? "%+.1f µs" : "%+.0f µs", nanos / 1e3);
    }
}
