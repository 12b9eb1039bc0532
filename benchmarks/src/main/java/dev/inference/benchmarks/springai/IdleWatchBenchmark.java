package dev.inference.benchmarks.springai;

import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.springai.exchange.IdleWatchedStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the {@code stream-idle-timeout}'s watch ({@link IdleWatchedStream}) costs a stream, apart from
 * Spring AI and its threads: {@link #watchOpenAiStream} starts the watch on the benchmarks' whole OpenAI
 * stream (six events, 884 bytes, as the first read after the content began finds it in memory; they end
 * with a blank line, so the watch need not follow them) and ends it, as a stream in
 * {@link SpringAiHarness --in-memory} does; {@link #readLongStreamWatched} reads a
 * long answer (a thousand content events, 176 KB) through the watch, 8 KB at a time as an SDK's reader
 * does, beside {@link #readLongStreamUnwatched}, the same read without it: the difference is the watch's
 * look at every byte.
 *
 * <p>Trap: the watch's deadline goes to the JVM's shared timer, as an application's does, so the first
 * benchmark includes one add to and one withdrawal from the timer's inbox.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class IdleWatchBenchmark {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private static final byte[] OPENAI_STREAM = LoopbackProvider.body(LoopbackProvider.OPENAI_PATH, true);

    private static final byte[] LONG_STREAM = longStream(1000);

    private static final Runnable NOTHING = () -> {
    };

    private final Retrier retrier = Retrier.builder(new Policy(0, Duration.ofMillis(1), 1, Duration.ofMillis(1)))
        .name("bench")
        .build();

    private final byte[] buffer = new byte[8192];

    /**
     * Starts the watch on a whole short stream read at once, and ends it.
     *
     * @return the ended watch
     * @throws IOException never: nothing is read
     */
    @Benchmark
    public InputStream watchOpenAiStream() throws IOException {
        IdleWatchedStream watched = IdleWatchedStream.watch(OPENAI_STREAM, InputStream.nullInputStream(), TIMEOUT,
                this.retrier, NOTHING);
        watched.close();
        return watched;
    }

    /**
     * Reads a long stream through the watch.
     *
     * @return the bytes read
     * @throws IOException never: the stream is in memory
     */
    @Benchmark
    public long readLongStreamWatched() throws IOException {
        try (InputStream watched = IdleWatchedStream.watch(new byte[0], new ByteArrayInputStream(LONG_STREAM), TIMEOUT,
                this.retrier, NOTHING)) {
            return readAll(watched);
        }
    }

    /**
     * Reads the same long stream without the watch: the floor.
     *
     * @return the bytes read
     * @throws IOException never: the stream is in memory
     */
    @Benchmark
    public long readLongStreamUnwatched() throws IOException {
        try (InputStream unwatched = new ByteArrayInputStream(LONG_STREAM)) {
            return readAll(unwatched);
        }
    }

    private long readAll(InputStream stream) throws IOException {
        long total = 0;
        for (int n = stream.read(this.buffer); n >= 0; n = stream.read(this.buffer)) {
            total += n;
        }
        return total;
    }

    /** An OpenAI stream of {@code events} content chunks of a short word each, as a long answer streams. */
    private static byte[] longStream(int events) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (int i = 0; i < events; i++) {
            body.writeBytes(("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
                    + "\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" word\"},"
                    + "\"finish_reason\":null}]}\n\n").getBytes(StandardCharsets.UTF_8));
        }
        body.writeBytes("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
        return body.toByteArray();
    }
}
