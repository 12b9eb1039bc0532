package dev.inference.retry.springai.timeouts;

import static dev.inference.retry.springai.Await.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.failure.StreamStalledException;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryListener;
import dev.inference.retry.Timeouts;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.testing.SseScriptServer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import org.springframework.ai.chat.model.StreamingChatModel;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

/**
 * What the timeout tests of this package share: the durations they time against, the start of a model
 * as an application gets it, retried by three attempts {@link #BACKOFF} apart with the timeouts under
 * test, and the two timed exchanges every provider's tests check alike. Each model's own test says what
 * its loopback server plays; a timed check warms the model up first, since a context's first exchange
 * loads classes and a busy machine may take longer than {@link #TIMEOUT} to do so.
 */
final class TimedModels {

    static final Duration TIMEOUT = Duration.ofMillis(300);

    static final Duration BACKOFF = Duration.ofMillis(50);

    /** What a busy two-core machine may add to a timed exchange. */
    static final Duration MARGIN = Duration.ofSeconds(2);

    private TimedModels() {
    }

    /**
     * Runs {@code test} in a context of {@code runner} whose model {@code bean} is retried with these
     * timeouts, once the context has started.
     */
    static void run(ApplicationContextRunner runner, String bean, Timeouts timeouts,
            ContextConsumer<AssertableApplicationContext> test) {
        run(runner, bean, retrier(bean, timeouts).build(), test);
    }

    /** Runs {@code test} as the method above does, the retrier telling {@code listener} of its events. */
    static void run(ApplicationContextRunner runner, String bean, Timeouts timeouts, RetryListener listener,
            ContextConsumer<AssertableApplicationContext> test) {
        run(runner, bean, retrier(bean, timeouts).listener(listener).build(), test);
    }

    private static Retrier.Builder retrier(String bean, Timeouts timeouts) {
        return Retrier.builder(new Policy(0, BACKOFF, 3, BACKOFF)).name(bean).timeouts(timeouts);
    }

    private static void run(ApplicationContextRunner runner, String bean, Retrier retrier,
            ContextConsumer<AssertableApplicationContext> test) {
        runner
            .withBean(ModelRetriers.class, () -> (name) -> name.equals(bean) ? Optional.of(retrier) : Optional.empty())
            .run((context) -> {
                assertThat(context).hasNotFailed();
                test.accept(context);
            });
    }

    /** Streams an answer to "Hi" and joins its chunks. */
    static String streamed(StreamingChatModel model) {
        List<String> chunks = model.stream("Hi").collectList().block(Duration.ofSeconds(20));
        return String.join("", Objects.requireNonNull(chunks));
    }

    /**
     * Checks a call on a server that answers, hangs, then answers: after a warm-up call, the call of
     * {@code input} abandons its first attempt at {@link #TIMEOUT} and succeeds on the next, its answer
     * checked by {@code answer}; it takes one timeout and one backoff (within the margin), makes two
     * requests after the warm-up's, and closes the hung one's connection.
     */
    static <T> void assertAnsweredAfterOneHungAttempt(SseScriptServer server, Function<String, T> call,
            String input, Consumer<T> answer) {
        var unused = call.apply("Warm up");
        long start = System.nanoTime();

        T result = call.apply(input);

        answer.accept(result);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(TIMEOUT)
            .isLessThan(TIMEOUT.plus(BACKOFF).plus(MARGIN));
        assertThat(server.requestCount()).isEqualTo(1 + 2);
        awaitTrue(() -> server.closedByClient() == 1);
    }

    /**
     * Checks a stream, with the stream-idle timeout {@link #TIMEOUT}, on a server that sends a first
     * chunk and falls silent: it ends with {@link StreamStalledException} after one timeout (within the
     * margin), not retried, and the connection is closed. Returns the chunks received before the stall.
     */
    static List<String> assertStreamEndsStalled(SseScriptServer server, StreamingChatModel model) {
        List<String> received = new CopyOnWriteArrayList<>();
        long start = System.nanoTime();

        Throwable thrown = catchThrowable(
                () -> model.stream("Hi").doOnNext(received::add).blockLast(Duration.ofSeconds(20)));

        assertThat(thrown).isInstanceOf(StreamStalledException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(TIMEOUT)
            .isLessThan(TIMEOUT.plus(MARGIN));
        assertThat(server.requestCount()).isOne();
        awaitTrue(() -> server.closedByClient() == 1);
        return received;
    }
}
