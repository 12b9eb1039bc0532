package dev.inference.benchmarks.springai;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatModel;

/**
 * Measures what the starter costs a Spring AI application on the success path: the real Spring AI 2.0.1
 * {@link OpenAiChatModel} and {@link AnthropicChatModel} as the starter rebuilds and retries them, beside
 * the same models left alone, in one JVM, against a {@link LoopbackProvider} that answers at once.
 * How it measures latency and allocation, and what its figures mean: {@code docs/spring-ai-path.md}.
 *
 * <p>Run from the benchmark jar: {@code java -cp benchmarks/target/benchmarks.jar
 * dev.inference.benchmarks.springai.SpringAiHarness [--calls N] [--streams N] [--warmup N]
 * [--provider openai|anthropic|all] [--timeouts [--in-memory] [--against-itself]] [--baseline-first]
 * [--forks N] [--quick]}. Prints one Markdown table per provider. With {@code --timeouts} the comparison
 * is the starter's models with the three timeouts set (30 s each, never reached) against the starter's
 * models without them, both in the same JVM: the cost of the timeouts alone, paired call by call like
 * the starter's cost. With {@code --in-memory} as well, the {@link InMemoryProvider} answers instead of
 * the loopback provider, so that the network's noise does not hide a difference of a microsecond. With
 * {@code --against-itself} as well, neither side has the timeouts: two applications that differ in
 * nothing, whose difference is the comparison's own noise. With {@code --forks N}, the comparison runs
 * in N JVMs of its own, one after the other, the baseline started first in every second one, and their
 * paired medians are summarised over the forks ({@link PairedForks}).
 *
 * <p>Traps: the two applications ({@link ChatModelContext}) take turns call by call, the one going
 * first changing every time, so that both meet the same interference; and with fewer than the default
 * 10,000 rounds of warm-up, the starter's share is partly its code still run interpreted or by C1,
 * which the line after the table (the JIT's compile time) shows. A stream's paired median moves from
 * one JVM to the next by more than its interval, and the application started first tends to read
 * slower: a stream's cost under a few µs needs {@code --forks}.
 */
public final class SpringAiHarness {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** Lets the threads of a block finish what its last operation left them (closing a stream) before counting. */
    private static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private static final String EXPECTED = String.join("", LoopbackProvider.CONTENT);

    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory
        .getThreadMXBean();

    private SpringAiHarness() {
    }

    /**
     * Runs the measurements and prints their tables.
     *
     * @param args the options described in the class documentation
     * @throws IllegalArgumentException for an unknown option or a bad number
     * @throws IllegalStateException if a model answers wrongly or the starter's model is not retried
     */
    public static void main(String[] args) {
        Options options = Options.parse(args);
        System.out.printf(Locale.ROOT, "Java %s (%s), %d processors, load average %.2f; %s%n",
                System.getProperty("java.version"), System.getProperty("java.vm.name"),
                Runtime.getRuntime().availableProcessors(), loadAverage(), options);
        if (options.forks > 0) {
            PairedForks.run(options.forks, args, options.beans());
            return;
        }
        try (@Nullable LoopbackProvider provider = options.inMemory ? null : LoopbackProvider.start();
                ChatModelContext first = start(provider, options, !options.baselineFirst);
                ChatModelContext second = start(provider, options, options.baselineFirst)) {
            ChatModelContext starter = options.baselineFirst ? second : first;
            ChatModelContext alone = options.baselineFirst ? first : second;
            for (String bean : options.beans()) {
                Class<? extends ChatModel> type = bean.equals(ChatModelContext.OPENAI) ? OpenAiChatModel.class
                        : AnthropicChatModel.class;
                Pair pair = new Pair(starter.model(bean, type), alone.model(bean, type));
                Result result = measure(pair, options, provider);
                double attempts = starter.attempts(bean);
                if (attempts == 0 || (alone.attempts(bean) != 0) != options.timeouts) {
                    throw new IllegalStateException("The starter's " + bean + " counted " + attempts
                            + " attempts, the baseline's " + alone.attempts(bean) + ": not the models to compare");
                }
                System.out.printf(Locale.ROOT, "%n%s (%s), %d calls and %d streams each, after %d of each to warm up; "
                        + "the starter counted %.0f attempts%n%n", type.getSimpleName(), bean, options.calls,
                        options.streams, options.warmup, attempts);
                result.print(options);
                if (options.forkReport) {
                    PairedForks.report(bean, result.pairedMedians());
                }
            }
        }
        System.out.printf(Locale.ROOT, "%nLoad average at the end: %.2f%n", loadAverage());
    }

    /**
     * Starts one of the two applications: the compared one (the starter, or with {@code --timeouts} the
     * starter with them unless {@code --against-itself}) or the baseline (Spring AI alone, or with
     * {@code --timeouts} the starter without them).
     */
    private static ChatModelContext start(@Nullable LoopbackProvider provider, Options options, boolean compared) {
        boolean timed = compared && options.timed();
        if (provider == null) {
            return ChatModelContext.startInMemory(timed);
        }
        return ChatModelContext.start(provider, compared || options.timeouts, timed);
    }

    /**
     * The milliseconds the JIT compilers have spent so far, on all their threads; negative if the JVM
     * does not tell. Compilation still going on during the timed rounds means they were not yet measuring
     * compiled code.
     */
    private static long compilationMillis() {
        CompilationMXBean compilation = ManagementFactory.getCompilationMXBean();
        return (compilation != null && compilation.isCompilationTimeMonitoringSupported())
                ? compilation.getTotalCompilationTime() : -1;
    }

    /** The system's load average over the last minute, as {@code uptime} shows it; negative if unknown. */
    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static Result measure(Pair pair, Options options, @Nullable LoopbackProvider provider) {
        long compiledBefore = compilationMillis();
        for (int i = 0; i < options.warmup; i++) {
            pair.call(i);
            pair.stream(i);
        }
        Result result = new Result(options.calls, options.streams);
        long compiledWarm = compilationMillis();
        for (int i = 0; i < options.calls; i++) {
            result.calls.add(pair.call(i));
        }
        for (int i = 0; i < options.streams; i++) {
            result.streams.add(pair.stream(i));
        }
        long compiledTimed = compilationMillis();
        if (compiledBefore >= 0) {
            result.compilation = new Compilation(compiledWarm - compiledBefore, compiledTimed - compiledWarm);
        }
        // In memory, the provider answers on the client's threads, whose allocations count.
        long providerThread = (provider != null) ? provider.exchangeThread() : -1;
        for (int round = 0; round < options.allocationRounds; round++) {
            boolean starterFirst = round % 2 == 0;
            for (boolean retried : new boolean[] { starterFirst, !starterFirst }) {
                ChatModel model = retried ? pair.starter : pair.alone;
                result.allocation(retried).add(allocation(options.allocationBlock, providerThread, () -> call(model)),
                        allocation(options.allocationBlock, providerThread, () -> stream(model)));
            }
        }
        return result;
    }

    private static Allocation.Sample allocation(int operations, long providerThread, Runnable operation) {
        LockSupport.parkNanos(SETTLE_NANOS);
        long before = allocatedExceptProvider(THREADS.getAllThreadIds(), providerThread);
        long callingBefore = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < operations; i++) {
            operation.run();
        }
        long calling = THREADS.getCurrentThreadAllocatedBytes() - callingBefore;
        LockSupport.parkNanos(SETTLE_NANOS);
        // Threads started during the block count from zero.
        long after = allocatedExceptProvider(THREADS.getAllThreadIds(), providerThread);
        return new Allocation.Sample((double) (after - before) / operations, (double) calling / operations);
    }

    private static long allocatedExceptProvider(long[] ids, long providerThread) {
        long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        long sum = 0;
        for (int i = 0; i < ids.length; i++) {
            // -1 for a thread that ended meanwhile.
            if (ids[i] != providerThread && bytes[i] > 0) {
                sum += bytes[i];
            }
        }
        return sum;
    }

    /** Makes one call, and checks its answer. */
    private static void call(ChatModel model) {
        ChatResponse response = model.call(new Prompt("Hello"));
        check(text(response), model);
    }

    /** Consumes one stream, and checks what it delivered. */
    private static Marks stream(ChatModel model) {
        return stream(model, new Prompt("Hello"));
    }

    /** Consumes one stream, and checks what it delivered; notes when its first element and its end came. */
    private static Marks stream(ChatModel model, Prompt prompt) {
        StringBuilder text = new StringBuilder();
        Marks marks = new Marks();
        model.stream(prompt).doOnNext((response) -> {
            long now = System.nanoTime();
            if (!marks.first) {
                marks.firstChunk = now;
                marks.first = true;
            }
            String piece = text(response);
            if (!marks.token && !piece.isEmpty()) {
                marks.firstToken = now;
                marks.token = true;
            }
            text.append(piece);
        }).doOnComplete(() -> marks.end = System.nanoTime()).blockLast(TIMEOUT);
        // blockLast returned after the signals above: what they wrote is visible here.
        check(text.toString(), model);
        return marks;
    }

    private static String text(ChatResponse response) {
        StringBuilder text = new StringBuilder();
        for (Generation generation : response.getResults()) {
            String piece = generation.getOutput().getText();
            text.append(Objects.requireNonNullElse(piece, ""));
        }
        return text.toString();
    }

    private static void check(String text, ChatModel model) {
        if (!text.equals(EXPECTED)) {
            throw new IllegalStateException(model.getClass().getSimpleName() + " answered \"" + text
                    + "\", not \"" + EXPECTED + "\"");
        }
    }

    /** When a stream's signals came, by {@link System#nanoTime()}. */
    private static final class Marks {

        boolean first;

        long firstChunk;

        boolean token;

        /** When the first element with text came: the time to the first token. */
        long firstToken;

        long end;
    }

    /** The two models of one provider, measured turn by turn. */
    private static final class Pair {

        final ChatModel starter;

        final ChatModel alone;

        Pair(ChatModel starter, ChatModel alone) {
            this.starter = starter;
            this.alone = alone;
        }

        /** One round of calls, the starter's first in even rounds; nanoseconds, the starter's first. */
        long[] call(int round) {
            long[] nanos = new long[2];
            for (int turn = 0; turn < 2; turn++) {
                boolean retried = (round % 2 == 0) == (turn == 0);
                ChatModel model = retried ? this.starter : this.alone;
                Prompt prompt = new Prompt("Hello");
                long start = System.nanoTime();
                ChatResponse response = model.call(prompt);
                nanos[retried ? 0 : 1] = System.nanoTime() - start;
                check(text(response), model);
            }
            return nanos;
        }

        /** One round of streams; to the first element, to the first with text and to the end, the starter's first. */
        long[][] stream(int round) {
            long[][] nanos = new long[2][];
            for (int turn = 0; turn < 2; turn++) {
                boolean retried = (round % 2 == 0) == (turn == 0);
                Prompt prompt = new Prompt("Hello");
                long start = System.nanoTime();
                Marks marks = SpringAiHarness.stream(retried ? this.starter : this.alone, prompt);
                nanos[retried ? 0 : 1] = new long[] { marks.firstChunk - start, marks.firstToken - start,
                    marks.end - start };
            }
            return nanos;
        }
    }

    /** The JIT compilers' time during the warm-up and during the timed rounds, in milliseconds. */
    private record Compilation(long warmupMillis, long timedMillis) {
    }

    /** The measurements of one provider. */
    private static final class Result {

        final List<long[]> calls;

        final List<long[][]> streams;

        final Allocation starterAllocation = new Allocation();

        final Allocation aloneAllocation = new Allocation();

        /** The JIT compilers' time while this provider was measured; {@code null} when the JVM does not tell. */
        @Nullable Compilation compilation;

        Result(int calls, int streams) {
            this.calls = new ArrayList<>(calls);
            this.streams = new ArrayList<>(streams);
        }

        Allocation allocation(boolean retried) {
            return retried ? this.starterAllocation : this.aloneAllocation;
        }

        void print(Options options) {
            String header;
            if (options.againstItself) {
                header = "| | the starter without timeouts | the same, a second application | difference |";
            }
            else if (options.timeouts) {
                header = "| | the starter with the three timeouts | the starter without | cost of the timeouts |";
            }
            else {
                header = "| | with the starter | Spring AI alone | cost of the starter |";
            }
            System.out.println(header);
            System.out.println("|---|---:|---:|---:|");
            latencyRows("successful `call`", calls(0), calls(1));
            latencyRows("stream's first element", streams(0, 0), streams(1, 0));
            latencyRows("stream's first token", streams(0, 1), streams(1, 1));
            latencyRows("whole stream", streams(0, 2), streams(1, 2));
            allocationRow("allocated per `call`, all threads", this.starterAllocation.callAll(),
                    this.aloneAllocation.callAll());
            allocationRow("allocated per `call`, calling thread", this.starterAllocation.callCalling(),
                    this.aloneAllocation.callCalling());
            allocationRow("allocated per stream, all threads", this.starterAllocation.streamAll(),
                    this.aloneAllocation.streamAll());
            if (this.compilation != null) {
                System.out.printf(Locale.ROOT, "%nJIT compilation: %d ms during the warm-up, %d ms during the timed "
                        + "rounds%n", this.compilation.warmupMillis(), this.compilation.timedMillis());
            }
        }

        /**
         * The paired medians, in nanoseconds: of a call, of a stream's first token and of a whole stream,
         * as {@link PairedForks#METRICS} names them.
         */
        long[] pairedMedians() {
            return new long[] { percentile(paired(calls(0), calls(1)), 50),
                percentile(paired(streams(0, 1), streams(1, 1)), 50),
                percentile(paired(streams(0, 2), streams(1, 2)), 50) };
        }

        /** The calls' times of one side: 0 the compared application's, 1 the baseline's. */
        private long[] calls(int side) {
            return this.calls.stream().mapToLong((round) -> round[side]).toArray();
        }

        /** One mark of the streams' times of one side: 0 the first element, 1 the first token, 2 the end. */
        private long[] streams(int side, int mark) {
            return this.streams.stream().mapToLong((round) -> round[side][mark]).toArray();
        }

        /** The round-by-round differences, the compared application's less the baseline's, sorted. */
        private static long[] paired(long[] starter, long[] alone) {
            long[] paired = new long[starter.length];
            for (int i = 0; i < paired.length; i++) {
                paired[i] = starter[i] - alone[i];
            }
            Arrays.sort(paired);
            return paired;
        }

        private static void latencyRows(String what, long[] starter, long[] alone) {
            long[] paired = paired(starter, alone);
            long[] withStarter = starter.clone();
            long[] without = alone.clone();
            Arrays.sort(withStarter);
            Arrays.sort(without);
            long p50 = percentile(withStarter, 50);
            long aloneP50 = percentile(without, 50);
            // The median's distribution-free 95% confidence interval: the ranks n/2 ± 1.96·√n/2.
            int spread = (int) Math.ceil(1.96 * Math.sqrt(paired.length) / 2);
            int middle = (paired.length - 1) / 2;
            long lower = paired[Math.max(0, middle - spread)];
            long upper = paired[Math.min(paired.length - 1, middle + spread)];
            System.out.printf(Locale.ROOT, "| %s, p50 | %s | %s | %s (paired: %s, 95%% CI %s to %s) |%n", what,
                    time(p50), time(aloneP50), signedMicros(p50 - aloneP50), signedMicros(percentile(paired, 50)),
                    signedMicros(lower), signedMicros(upper));
            long p99 = percentile(withStarter, 99);
            long aloneP99 = percentile(without, 99);
            System.out.printf(Locale.ROOT, "| %s, p99 | %s | %s | %s |%n", what, time(p99), time(aloneP99),
                    signedMicros(p99 - aloneP99));
        }

        private static void allocationRow(String what, double starter, double alone) {
            System.out.printf(Locale.ROOT, "| %s | %s | %s | %s |%n", what, kilobytes(starter), kilobytes(alone),
                    signedKilobytes(starter - alone));
        }
    }

    /** The allocation blocks of one model, summarised by their medians. */
    private static final class Allocation {

        private final List<Sample> calls = new ArrayList<>();

        private final List<Sample> streams = new ArrayList<>();

        void add(Sample call, Sample stream) {
            this.calls.add(call);
            this.streams.add(stream);
        }

        double callAll() {
            return median(this.calls.stream().mapToDouble(Sample::all).toArray());
        }

        double callCalling() {
            return median(this.calls.stream().mapToDouble(Sample::calling).toArray());
        }

        double streamAll() {
            return median(this.streams.stream().mapToDouble(Sample::all).toArray());
        }

        private static double median(double[] values) {
            Arrays.sort(values);
            return values[(values.length - 1) / 2];
        }

        /** Bytes per operation of one block: all threads but the provider's, and the calling thread alone. */
        record Sample(double all, double calling) {
        }
    }

    /** The nearest-rank percentile of sorted values. */
    private static long percentile(long[] sorted, double percent) {
        int rank = (int) Math.ceil(percent / 100 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
    }

    private static String time(long nanos) {
        return (nanos >= 1_000_000) ? String.format(Locale.ROOT, "%.2f ms", nanos / 1e6)
                : String.format(Locale.ROOT, "%.0f µs", nanos / 1e3);
    }

    /** A difference in µs, with a tenth below 10 µs, where the timeouts' cost is read. */
    private static String signedMicros(long nanos) {
        return String.format(Locale.ROOT, (Math.abs(nanos) < 10_000) ? "%+.1f µs" : "%+.0f µs", nanos / 1e3);
    }

    private static String kilobytes(double bytes) {
        return String.format(Locale.ROOT, "%.1f KB", bytes / 1024);
    }

    private static String signedKilobytes(double bytes) {
        return String.format(Locale.ROOT, "%+.1f KB", bytes / 1024);
    }

    /** The command line. */
    private static final class Options {

        int calls = 2000;

        int streams = 1000;

        int warmup = 10_000;

        int allocationRounds = 6;

        int allocationBlock = 100;

        String provider = "all";

        boolean timeouts;

        boolean inMemory;

        boolean againstItself;

        boolean baselineFirst;

        /** How many JVMs of its own the comparison runs in; 0 to run it in this one. */
        int forks;

        /** Whether this JVM is one of {@link PairedForks}': it prints its paired medians for the parent. */
        boolean forkReport;

        static Options parse(String[] args) {
            Options options = new Options();
            for (int i = 0; i < args.length; i++) {
                String option = args[i];
                switch (option) {
                    case "--quick" -> {
                        options.calls = 40;
                        options.streams = 20;
                        options.warmup = 20;
                        options.allocationRounds = 2;
                        options.allocationBlock = 10;
                    }
                    case "--calls" -> options.calls = positive(option, args, ++i);
                    case "--streams" -> options.streams = positive(option, args, ++i);
                    case "--warmup" -> options.warmup = count(option, args, ++i);
                    case "--provider" -> options.provider = value(option, args, ++i);
                    case "--timeouts" -> options.timeouts = true;
                    case "--in-memory" -> options.inMemory = true;
                    case "--against-itself" -> options.againstItself = true;
                    case "--baseline-first" -> options.baselineFirst = true;
                    case "--forks" -> options.forks = count(option, args, ++i);
                    case PairedForks.REPORT -> options.forkReport = true;
                    default -> throw new IllegalArgumentException("Unknown option " + option
                            + "; the options are --calls N, --streams N, --warmup N, "
                            + "--provider openai|anthropic|all, --timeouts, --in-memory, --against-itself, "
                            + "--baseline-first, --forks N and --quick");
                }
            }
            if (options.inMemory && !options.timeouts) {
                throw new IllegalArgumentException("--in-memory answers the starter's models only, so it compares "
                        + "them with their timeouts against them without: add --timeouts");
            }
            if (options.forks == 1) {
                throw new IllegalArgumentException("--forks 1 summarises nothing: give at least 2, so that the "
                        + "baseline starts first in one of them, or leave --forks out to run in this JVM");
            }
            if (options.forks > 0 && options.baselineFirst) {
                throw new IllegalArgumentException("--forks starts the baseline first in every second fork: "
                        + "leave --baseline-first out");
            }
            if (options.againstItself && !options.timeouts) {
                throw new IllegalArgumentException("--against-itself measures the noise of the timeouts' comparison, "
                        + "the starter without timeouts on both sides: add --timeouts");
            }
            options.beans();
            return options;
        }

        /** Whether the first application's models have the three timeouts. */
        boolean timed() {
            return this.timeouts && !this.againstItself;
        }

        List<String> beans() {
            return switch (this.provider) {
                case "openai" -> List.of(ChatModelContext.OPENAI);
                case "anthropic" -> List.of(ChatModelContext.ANTHROPIC);
                case "all" -> List.of(ChatModelContext.OPENAI, ChatModelContext.ANTHROPIC);
                default -> throw new IllegalArgumentException("--provider " + this.provider
                        + " is not one of openai, anthropic, all");
            };
        }

        private static String value(String option, String[] args, int index) {
            if (index >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[index];
        }

        private static int count(String option, String[] args, int index) {
            String value = value(option, args, index);
            int count;
            try {
                count = Integer.parseInt(value);
            }
            catch (NumberFormatException ex) {
                throw new IllegalArgumentException(option + " " + value + " is not a whole number", ex);
            }
            if (count < 0) {
                throw new IllegalArgumentException(option + " " + value + " is negative");
            }
            return count;
        }

        private static int positive(String option, String[] args, int index) {
            int count = count(option, args, index);
            if (count == 0) {
                throw new IllegalArgumentException(option + " must be at least 1");
            }
            return count;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "provider %s, %d calls, %d streams, %d to warm up, %d allocation "
                    + "rounds of %d%s%s%s%s", this.provider, this.calls, this.streams, this.warmup,
                    this.allocationRounds, this.allocationBlock,
                    this.againstItself ? ", the starter without timeouts against itself"
                            : this.timeouts ? ", the starter with its timeouts against the starter without" : "",
                    this.inMemory ? ", answered in memory" : "",
                    this.baselineFirst ? ", the baseline started first" : "",
                    (this.forks > 0) ? ", in " + this.forks + " forks" : "");
        }
    }
}
