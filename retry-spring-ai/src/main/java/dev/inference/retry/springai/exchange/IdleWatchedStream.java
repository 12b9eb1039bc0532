package dev.inference.retry.springai.exchange;

import dev.inference.client.AttemptScope;
import dev.inference.client.CallContext;
import dev.inference.failure.StreamStalledException;
import dev.inference.retry.Retrier;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The rest of an established server-sent event stream, watched for stalls ({@code stream-idle-timeout},
 * SPEC §11): once no event but keep-alives (a {@code ping} event, an SSE comment) has arrived for
 * longer than the timeout, the stream is ended, its response closed from the retrier's timer's thread
 * (which cancels the OkHttp call, see {@link AbandonableCalls}), the retrier's listeners are told
 * ({@link Retrier#streamStalled}), and every read then throws {@link StreamStalledException}, which is
 * never retried.
 *
 * <p>Events are recognised by their lines as {@link FirstSseEvent} recognises them, with only what the
 * watch needs kept: whether the event has data and whether it is named {@code ping}. One timer task per
 * stream at a time: an event only records when it came, and the task, when it runs, waits again for
 * what is left of the timeout. Read by one thread at a time, as any stream.
 */
public final class IdleWatchedStream extends FilterInputStream {

    private static final byte[] PING = "event: ping".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Eight bytes of an array at a time, the first in the lowest bits, for {@link #lineEnd}. */
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static final long EACH_BYTE_ONE = 0x0101010101010101L;

    private static final long EACH_BYTE_HIGH_BIT = 0x8080808080808080L;

    private static final long EACH_BYTE_LF = EACH_BYTE_ONE * '\n';

    private static final long EACH_BYTE_CR = EACH_BYTE_ONE * '\r';

    private final Duration timeout;

    private final long timeoutNanos;

    private final Retrier retrier;

    private final AttemptScope.Timer timer;

    private final Runnable closeResponse;

    private final AtomicBoolean ended = new AtomicBoolean();

    private volatile long lastEventNanos;

    private volatile boolean stalled;

    private volatile CallContext.@Nullable Registration check;

    /** The first bytes of the line being read, enough to recognise {@code event: ping}. */
    private final byte[] line = new byte[PING.length + 1];

    private int lineLength;

    /** Where {@link #read()} reads its one byte, the stream being read by one thread at a time. */
    private final byte[] one = new byte[1];

    private boolean eventHasData;

    private boolean eventIsPing;

    private boolean afterCarriageReturn;

    /** Whether the bytes being scanned ended an event that is not a keep-alive: their read is then its time. */
    private boolean eventEnded;

    private IdleWatchedStream(InputStream rest, Duration timeout, Retrier retrier, Runnable closeResponse) {
        super(rest);
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
        this.retrier = retrier;
        this.timer = retrier.timer();
        this.closeResponse = closeResponse;
    }

    /**
     * Starts watching a stream whose content has just begun.
     *
     * @param read what of the stream was read already: its first event and whatever came with it, which
     *     the watch follows so that it knows where in a line the rest begins (an event whose start was
     *     read with the first one ends a silence when its end comes)
     * @param rest what is left of the stream
     * @param timeout the longest silence allowed between two events that are not keep-alives
     * @param retrier the stream's retrier, on whose timer the watch runs and whose listeners hear of a stall
     * @param closeResponse closes the stream's response, so that a blocked read ends; runs on the timer's
     *     thread, so must not block
     * @return the watched stream
     */
    public static IdleWatchedStream watch(byte[] read, InputStream rest, Duration timeout, Retrier retrier,
            Runnable closeResponse) {
        return watch(read, 0, rest, timeout, retrier, closeResponse, null);
    }

    /**
     * Starts watching a stream whose content has just begun, taking over the deadline that timed its
     * first token when there is one, rather than adding a deadline of its own to the timer.
     *
     * @param eventsFrom where in {@code read} an event begins, the bytes before it being whole events
     *     (as {@link FirstSseEvent#eventEnd()} tells), which the watch then need not follow
     * @param firstToken the deadline of the stream's attempt, taken over unless it was made for a longer
     *     idle timeout than {@code timeout}; or {@code null}
     * @see #watch(byte[], InputStream, Duration, Retrier, Runnable)
     */
    static IdleWatchedStream watch(byte[] read, int eventsFrom, InputStream rest, Duration timeout,
            Retrier retrier, Runnable closeResponse, @Nullable StreamDeadline firstToken) {
        IdleWatchedStream watched = new IdleWatchedStream(rest, timeout, retrier, closeResponse);
        if (!endsWithBlankLine(read)) {
            watched.scan(read, eventsFrom, read.length - eventsFrom);
            watched.eventEnded = false;
        }
        watched.lastEventNanos = watched.timer.nanoTime();
        CallContext.@Nullable Registration adopted = (firstToken != null)
                ? firstToken.adopt(watched::check, watched.timeoutNanos) : null;
        if (adopted != null) {
            watched.check = adopted;
        }
        else {
            watched.scheduleCheck(watched.timeoutNanos);
        }
        return watched;
    }

    /**
     * Tells whether bytes end with a blank line: a {@code \n} right after another always ends an empty
     * line (the first may close a {@code \r\n}, the second cannot), so an event ends there, and the watch
     * goes on as at a stream's start. Providers send whole events, so a first read almost always ends so,
     * and the events that came with the first one need not be followed.
     */
    private static boolean endsWithBlankLine(byte[] bytes) {
        int length = bytes.length;
        return length >= 2 && bytes[length - 1] == '\n' && bytes[length - 2] == '\n';
    }

    @Override
    public int read() throws IOException {
        int n = read(this.one, 0, 1);
        return (n < 0) ? -1 : (this.one[0] & 0xff);
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        throwIfStalled();
        int n;
        try {
            n = super.read(buffer, offset, length);
        }
        catch (IOException | RuntimeException ex) {
            throwIfStalled();
            throw ex;
        }
        if (n < 0) {
            end();
            return n;
        }
        scan(buffer, offset, n);
        if (this.eventEnded) {
            // The events of one read came at once: one look at the clock for all of them.
            this.eventEnded = false;
            this.lastEventNanos = this.timer.nanoTime();
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        byte[] skipped = new byte[(int) Math.min(8192, Math.max(0, n))];
        int read = read(skipped, 0, skipped.length);
        return Math.max(0, read);
    }

    @Override
    public void close() throws IOException {
        end();
        super.close();
    }

    private void throwIfStalled() {
        if (this.stalled) {
            throw new StreamStalledException("The stream sent nothing but keep-alives for longer than its "
                    + "stream-idle-timeout of " + this.timeout, this.timeout);
        }
    }

    /**
     * Follows the lines of what was read. Only the first bytes of a line are kept; the rest of a longer
     * line (a data line's JSON, most of a stream) is passed over by {@link #lineEnd}, which looks for its
     * end alone.
     */
    private void scan(byte[] bytes, int offset, int length) {
        int end = offset + length;
        int i = offset;
        while (i < end) {
            byte current = bytes[i++];
            if (current == '\n' || current == '\r') {
                // The \n of a \r\n ends no second line.
                if (current == '\r' || !this.afterCarriageReturn) {
                    lineEnded();
                }
                this.afterCarriageReturn = current == '\r';
                continue;
            }
            this.afterCarriageReturn = false;
            if (this.lineLength < this.line.length) {
                this.line[this.lineLength++] = current;
                continue;
            }
            i = lineEnd(bytes, i, end);
        }
    }

    /**
     * Returns where the first {@code \n} or {@code \r} from {@code from} is, or {@code end} if none is
     * before it. Looks at eight bytes at a time: a byte of {@code word ^ EACH_BYTE_LF} is zero where
     * {@code word} has a {@code \n}, and {@code (v - EACH_BYTE_ONE) & ~v & EACH_BYTE_HIGH_BIT} sets the
     * high bit of the lowest zero byte of {@code v} (a byte above it may be marked too, by the borrow,
     * but the lowest mark is exact), so the lowest bit set in either word's marks is the line's end.
     */
    static int lineEnd(byte[] bytes, int from, int end) {
        int i = from;
        for (; i <= end - Long.BYTES; i += Long.BYTES) {
            long word = (long) WORDS.get(bytes, i);
            long lf = word ^ EACH_BYTE_LF;
            long cr = word ^ EACH_BYTE_CR;
            long marks = (((lf - EACH_BYTE_ONE) & ~lf) | ((cr - EACH_BYTE_ONE) & ~cr)) & EACH_BYTE_HIGH_BIT;
            if (marks != 0) {
                return i + Long.numberOfTrailingZeros(marks) / Byte.SIZE;
            }
        }
        while (i < end && bytes[i] != '\n' && bytes[i] != '\r') {
            i++;
        }
        return i;
    }

    private void lineEnded() {
        if (this.lineLength == 0) {
            if (this.eventHasData && !this.eventIsPing) {
                this.eventEnded = true;
            }
            this.eventHasData = false;
            this.eventIsPing = false;
            return;
        }
        if (startsWith("data")) {
            this.eventHasData = true;
        }
        else if (this.lineLength == PING.length && startsWith("event: ping")) {
            this.eventIsPing = true;
        }
        this.lineLength = 0;
    }

    private boolean startsWith(String field) {
        if (this.lineLength < field.length()) {
            return false;
        }
        for (int i = 0; i < field.length(); i++) {
            if (this.line[i] != field.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private void scheduleCheck(long delayNanos) {
        try {
            CallContext.Registration scheduled = this.timer.schedule(Duration.ofNanos(delayNanos), this::check);
            this.check = scheduled;
            // Ended while it was scheduled: the end may have withdrawn the one before.
            if (this.ended.get()) {
                scheduled.close();
            }
        }
        catch (RejectedExecutionException closed) {
            // The application is closing: the stream's own client ends it.
        }
    }

    /** On the timer thread: ends a stream that stalled, or waits for what is left of the timeout. */
    private void check() {
        if (this.ended.get()) {
            return;
        }
        long left = this.lastEventNanos + this.timeoutNanos - this.timer.nanoTime();
        if (left > 0) {
            scheduleCheck(left);
            return;
        }
        if (this.ended.compareAndSet(false, true)) {
            this.stalled = true;
            // Told before the reader can see the stall, so that whoever reads the meter after it sees it counted.
            try {
                this.retrier.streamStalled(this.timeout);
            }
            finally {
                this.closeResponse.run();
            }
        }
    }

    private void end() {
        if (this.ended.compareAndSet(false, true)) {
            CallContext.Registration scheduled = this.check;
            if (scheduled != null) {
                scheduled.close();
            }
        }
    }
}
