package dev.inference.benchmarks;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.failure.NetworkException;
import dev.inference.retry.AttemptEvent;
import dev.inference.retry.Policy;
import dev.inference.retry.RetryClient;
import dev.inference.retry.RetryListener;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Measures what JMH's averages cannot: how long a {@link RetryClient} waiting out a long backoff
 * takes to give up once its {@link CallContext} is cancelled from another thread (the
 * {@linkplain #wakeUps wake-up latency}, beside the floor the operating system sets, on a platform
 * thread and, on Java 21 or newer, a virtual one), and how closely
 * {@link dev.inference.retry.time.Sleeper#system()} keeps to the delay it is asked to wait
 * ({@linkplain #waitAccuracy wait accuracy}).
 *
 * <p>Run from the benchmark jar: {@code java -cp benchmarks/target/benchmarks.jar
 * dev.inference.benchmarks.WaitHarness [samples]}. Prints Markdown tables of percentiles.
 *
 * <p>Trap: both are real-time measurements, disturbed by anything else the machine runs; run it on an
 * idle machine.
 */
public final class WaitHarness {

    private static final InferenceRequest REQUEST = InferenceRequest.of("bench-model", "Hello");

    private static final Duration LONG_BACKOFF = Duration.ofSeconds(30);

    /** Lets the waiter settle into its park (a futex wait) before it is woken. */
    private static final long SETTLE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private WaitHarness() {
    }

    /**
     * Runs both measurements and prints their tables.
     *
     * @param args optionally the number of cancellation samples per row (default 2000)
     * @throws Exception if a measurement fails
     */
    public static void main(String[] args) throws Exception {
        int samples = (args.length > 0) ? Integer.parseInt(args[0]) : 2000;
        System.out.printf(Locale.ROOT, "Java %s (%s), %d processors%n%n", System.getProperty("java.version"),
                System.getProperty("java.vm.name"), Runtime.getRuntime().availableProcessors());

        System.out.printf(Locale.ROOT, "Cancellation wake-up, %d samples after %d of warm-up (microseconds)%n%n",
                samples, samples / 2);
        System.out.println("| waiter | p50 | p90 | p99 | p99.9 | max |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        long[][] platform = wakeUps(samples, WaitHarness::platformThread);
        row("park/unpark floor, platform thread", platform[0]);
        row("RetryClient, platform thread", platform[1]);
        Function<Runnable, Thread> virtual = virtualThreads();
        if (virtual != null) {
            long[][] virtualWaits = wakeUps(samples, virtual);
            row("park/unpark floor, virtual thread", virtualWaits[0]);
            row("RetryClient, virtual thread", virtualWaits[1]);
        }

        System.out.println();
        System.out.println("Wait accuracy of Sleeper.system(): actual minus intended wait (microseconds)");
        System.out.println();
        System.out.println("| delay | context | samples | p50 | p99 | max |");
        System.out.println("|---:|---|---:|---:|---:|---:|");
        waitAccuracy(Duration.ofMillis(1), 20, true);
        for (int millis : new int[] { 1, 10, 50 }) {
            int n = Math.max(40, 2000 / millis);
            accuracyRow(millis, "cancellable", n, waitAccuracy(Duration.ofMillis(millis), n, true));
            accuracyRow(millis, "background", n, waitAccuracy(Duration.ofMillis(millis), n, false));
        }
    }

    /** One blocking wait that another thread ends. */
    private interface Wait {

        /** Blocks the calling thread until {@link #wake()} is called. */
        void block();

        /** Ends the wait from another thread. */
        void wake();
    }

    /** The floor: a thread parked with a long timeout, unparked. */
    private static final class ParkedWait implements Wait {

        private volatile boolean woken;

        private volatile @Nullable Thread waiter;

        @Override
        public void block() {
            this.waiter = Thread.currentThread();
            while (!this.woken) {
                LockSupport.parkNanos(this, LONG_BACKOFF.toNanos());
            }
        }

        @Override
        public void wake() {
            this.woken = true;
            LockSupport.unpark(this.waiter);
        }
    }

    /** A retry call in a 30-second backoff, cancelled through its context. */
    private static final class RetryWait implements Wait {

        private static final RetryClient CLIENT = RetryClient.create(new FailingClient(),
                new Policy(1, LONG_BACKOFF, 2, LONG_BACKOFF));

        private final CallContext context = CallContext.cancellable();

        @Override
        public void block() {
            try {
                CLIENT.invoke(REQUEST, this.context);
            }
            catch (CancellationException expected) {
                return;
            }
            throw new IllegalStateException("The call ended without being cancelled");
        }

        @Override
        public void wake() {
            this.context.cancel();
        }
    }

    /**
     * Measures the cancellation wake-up: a waiter thread calls a client whose first attempt fails and
     * whose backoff is 30 seconds; once the waiter is parked in that wait, the main thread reads
     * {@link System#nanoTime()} and calls {@link CallContext#cancel()}, and the waiter reads the clock
     * again as soon as the call has thrown its {@link CancellationException}. The difference is the
     * latency: unparking, rescheduling, building the exception and unwinding. The floor, a bare
     * {@link LockSupport#parkNanos} and {@link LockSupport#unpark} pair ({@link ParkedWait}), and the
     * retry call ({@link RetryWait}) alternate sample by sample on one waiter thread, so that both meet
     * the same interference from the rest of the machine.
     *
     * @return the latencies in nanoseconds: the floor's at index 0, the retry call's at index 1
     */
    private static long[][] wakeUps(int samples, Function<Runnable, Thread> threads) throws InterruptedException {
        List<Supplier<Wait>> kinds = List.of(ParkedWait::new, RetryWait::new);
        SynchronousQueue<Wait> work = new SynchronousQueue<>();
        BlockingQueue<Long> woken = new LinkedBlockingQueue<>();
        Thread waiter = threads.apply(() -> {
            try {
                for (;;) {
                    Wait wait = work.take();
                    wait.block();
                    woken.put(System.nanoTime());
                }
            }
            catch (InterruptedException ex) {
                // Asked to stop.
            }
        });
        waiter.start();
        int warmUp = samples / 2;
        long[][] latencies = new long[kinds.size()][samples];
        for (int i = -warmUp; i < samples; i++) {
            for (int kind = 0; kind < kinds.size(); kind++) {
                Wait wait = kinds.get(kind).get();
                work.put(wait);
                // The waiter takes work in WAITING, and parks in the wait in TIMED_WAITING.
                while (waiter.getState() != Thread.State.TIMED_WAITING) {
                    Thread.onSpinWait();
                }
                LockSupport.parkNanos(SETTLE_NANOS);
                long cancelled = System.nanoTime();
                wait.wake();
                long latency = woken.take() - cancelled;
                if (i >= 0) {
                    latencies[kind][i] = latency;
                }
            }
        }
        waiter.interrupt();
        waiter.join();
        return latencies;
    }

    private static Thread platformThread(Runnable task) {
        Thread thread = new Thread(task, "waiter");
        thread.setDaemon(true);
        return thread;
    }

    /** Returns a factory of unstarted virtual threads, or {@code null} before Java 21. */
    private static @Nullable Function<Runnable, Thread> virtualThreads() {
        try {
            // Compiled for Java 17, so Thread.ofVirtual() is reached reflectively.
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Method unstarted = Class.forName("java.lang.Thread$Builder").getMethod("unstarted", Runnable.class);
            return task -> {
                try {
                    return (Thread) unstarted.invoke(builder, task);
                }
                catch (ReflectiveOperationException ex) {
                    throw new IllegalStateException("Cannot start a virtual thread", ex);
                }
            };
        }
        catch (NoSuchMethodException ex) {
            return null;
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException("Cannot make virtual threads", ex);
        }
    }

    /**
     * Measures the wait accuracy: a client whose first attempt fails waits once with the policy's
     * delay (jittered); the time from the listener's {@link RetryListener#retryScheduled} to the start
     * of the second attempt is compared with the delay announced there, for a cancellable context or
     * the background context (both park).
     *
     * @return how much longer than announced each wait lasted, in nanoseconds
     */
    private static long[] waitAccuracy(Duration delay, int samples, boolean cancellable) {
        TimedClient inner = new TimedClient();
        long[] scheduled = new long[1];
        long[] intended = new long[1];
        RetryClient client = RetryClient.builder(inner, new Policy(1, delay, 2, delay))
                .listener(new RetryListener() {

                    @Override
                    public void retryScheduled(AttemptEvent failed, Duration wait) {
                        intended[0] = wait.toNanos();
                        scheduled[0] = System.nanoTime();
                    }
                })
                .build();
        long[] overshoots = new long[samples];
        for (int i = 0; i < samples; i++) {
            client.invoke(REQUEST, cancellable ? CallContext.cancellable() : CallContext.background());
            overshoots[i] = (inner.succeededAt - scheduled[0]) - intended[0];
        }
        return overshoots;
    }

    private static void row(String waiter, long[] nanos) {
        Arrays.sort(nanos);
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s |%n", waiter, micros(percentile(nanos, 50)),
                micros(percentile(nanos, 90)), micros(percentile(nanos, 99)), micros(percentile(nanos, 99.9)),
                micros(nanos[nanos.length - 1]));
    }

    private static void accuracyRow(int millis, String context, int samples, long[] nanos) {
        Arrays.sort(nanos);
        System.out.printf(Locale.ROOT, "| %d ms | %s | %d | %s | %s | %s |%n", millis, context, samples,
                micros(percentile(nanos, 50)), micros(percentile(nanos, 99)), micros(nanos[nanos.length - 1]));
    }

    /** The nearest-rank percentile of sorted values. */
    private static long percentile(long[] sorted, double percent) {
        int rank = (int) Math.ceil(percent / 100 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
    }

    private static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1000.0);
    }

    /** Fails every attempt with a retryable failure. */
    private static final class FailingClient implements InvokeOnlyClient {

        private final NetworkException failure = new NetworkException("connection reset by the harness", null);

        @Override
        public InferenceResponse invoke(InferenceRequest request, CallContext context) {
            throw this.failure;
        }
    }

    /** Fails every other attempt, and notes when each successful attempt started. */
    private static final class TimedClient implements InvokeOnlyClient {

        private final NetworkException failure = new NetworkException("connection reset by the harness", null);

        private final InferenceResponse response = InferenceResponse.of("Hi");

        private boolean failNext = true;

        long succeededAt;

        @Override
        public InferenceResponse invoke(InferenceRequest request, CallContext context) {
            if (this.failNext) {
                this.failNext = false;
                throw this.failure;
            }
            this.succeededAt = System.nanoTime();
            this.failNext = true;
            return this.response;
        }
    }
}
