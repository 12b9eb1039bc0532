package dev.inference.sample.openai;

import dev.inference.client.StreamEvent;
import dev.inference.client.StreamReader;
import dev.inference.client.StreamResult;
import dev.inference.failure.NetworkException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Reads a chat-completions stream of server-sent events: each event's {@code data} is one chunk,
 * whose {@code choices[0].delta.content} text becomes one {@link StreamEvent} (chunks without
 * text are skipped), and {@code data: [DONE]} ends the stream normally.
 *
 * <p>The first failure ends the stream for good: the connection cut, the body ending without
 * {@code [DONE]}, a malformed chunk, or a line or an event longer than {@link #MAX_LINE_BYTES}
 * ({@link NetworkException}: the provider's answer did not arrive as sent, as far as the caller can
 * tell, so before any content the decorator may retry it), an error object in place of a chunk
 * ({@link ProviderErrorException}), the call cancelled or its deadline passing (the
 * {@link AttemptGuard}'s failure), the reading thread interrupted, or the reader closed before the
 * end ({@link CancellationException}; an interrupted thread keeps its interrupt status). It is
 * thrown from {@link #hasNext()} and {@link #next()}, then and every time after, and
 * {@link #result()} reports it. The body is closed as soon as the stream ends, and the attempt's
 * guard withdrawn. An {@link Error} thrown while reading ends the stream as well, and is rethrown as
 * it is; the stream's result is then an {@link IllegalStateException} caused by it.
 */
final class SseStreamReader implements StreamReader {

    /**
     * The longest line of a stream, and the most data one event may carry, in bytes: 1 MiB, some
     * thousand times a provider's usual chunk, and a bound on what one read can make this client hold.
     */
    static final int MAX_LINE_BYTES = 1024 * 1024;

    private static final String DONE = "[DONE]";

    /** The cancellation's message when the reading thread is interrupted. */
    private static final String INTERRUPTED = "Interrupted while reading the provider's stream";

    private final InputStream body;

    private final SseLines lines;

    private final AttemptGuard guard;

    private final ChatCompletions json;

    /** Set once, by whichever ends the stream first: the reading thread or {@link #close()}. */
    private final AtomicReference<@Nullable StreamResult> result = new AtomicReference<>();

    private @Nullable StreamEvent pending;

    /** What the rate-limit headers of the response that opened the stream said, if anything. */
    private final @Nullable Duration rateLimitedFor;

    SseStreamReader(InputStream body, AttemptGuard guard, ChatCompletions json, @Nullable Duration rateLimitedFor) {
        this.rateLimitedFor = rateLimitedFor;
        this.body = body;
        this.lines = new SseLines(body, MAX_LINE_BYTES);
        this.guard = guard;
        this.json = json;
        guard.onAbort(this::closeBody);
    }

    @Override
    public boolean hasNext() {
        StreamResult ended = this.result.get();
        if (ended != null) {
            ended.failure().ifPresent((failure) -> {
                throw failure;
            });
            return false;
        }
        if (this.pending != null) {
            return true;
        }
        try {
            String text = nextText();
            if (text == null) {
                end(StreamResult.completed());
                return false;
            }
            this.pending = StreamEvent.of(text);
            return true;
        }
        catch (RuntimeException ex) {
            // A concurrent close() may have ended the stream first: report what ended it.
            throw end(StreamResult.failed(ex)).failure().orElse(ex);
        }
        catch (Error error) {
            // Release the body and the context's hooks all the same; the Error itself goes on as it is.
            end(StreamResult.failed(new IllegalStateException("Reading the stream failed with " + error, error)));
            throw error;
        }
    }

    @Override
    public StreamEvent next() {
        StreamEvent event = hasNext() ? this.pending : null;
        if (event == null) {
            throw new NoSuchElementException("The stream has ended");
        }
        this.pending = null;
        return event;
    }

    @Override
    public Optional<Duration> rateLimitedFor() {
        return Optional.ofNullable(this.rateLimitedFor);
    }

    @Override
    public StreamResult result() {
        StreamResult ended = this.result.get();
        if (ended == null) {
            throw new IllegalStateException("The stream has not ended yet: read it until hasNext() returns false");
        }
        return ended;
    }

    /**
     * Closes the body. A stream that has not ended by then ends with a
     * {@link CancellationException}, which a read blocked in another thread then throws as well.
     */
    @Override
    public void close() {
        if (this.result.get() == null) {
            // The result is set before the body is closed, so a read that the close cuts short finds it.
            end(StreamResult.failed(new CancellationException("The stream reader was closed before the stream ended")));
        }
    }

    /** Returns the text of the next chunk that has some, or {@code null} at {@code [DONE]}. */
    private @Nullable String nextText() {
        while (true) {
            String data = nextData();
            if (DONE.equals(data)) {
                return null;
            }
            Optional<String> text = this.json.delta(data);
            if (text.isPresent()) {
                return text.get();
            }
        }
    }

    /** Returns the data of the next event that has some, per the server-sent events format. */
    private String nextData() {
        StringBuilder data = null;
        long dataBytes = 0;
        while (true) {
            String line = readLine();
            if (line.isEmpty()) {
                if (data != null) {
                    return data.toString();
                }
                continue;
            }
            int colon = line.indexOf(':');
            String field = (colon >= 0) ? line.substring(0, colon) : line;
            if (!field.equals("data")) {
                // Comments (":" lines, used as keep-alives) and the event, id and retry fields.
                continue;
            }
            String value = (colon < 0) ? "" : line.substring(colon + 1);
            int prefix = (colon < 0) ? line.length() : colon + 1;
            if (value.startsWith(" ")) {
                value = value.substring(1);
                prefix++;
            }
            // The prefix is ASCII: as many bytes as characters. One more byte per line joined.
            dataBytes += this.lines.lastLength() - prefix + ((data != null) ? 1 : 0);
            if (dataBytes > MAX_LINE_BYTES) {
                throw new NetworkException("The provider sent a server-sent event whose data is longer than "
                        + MAX_LINE_BYTES + " bytes", null);
            }
            data = (data == null) ? new StringBuilder(value) : data.append('\n').append(value);
        }
    }

    private String readLine() {
        String line;
        try {
            line = this.lines.next();
        }
        catch (IOException ex) {
            throw interrupted(ex, "The stream was cut before [DONE]");
        }
        if (line == null) {
            throw interrupted(null, "The stream ended before [DONE]");
        }
        return line;
    }

    private RuntimeException interrupted(@Nullable IOException cause, String message) {
        StreamResult ended = this.result.get();
        if (ended != null && ended.failure().isPresent()) {
            // Closed meanwhile: what ended the stream is the close, not the read it cut short.
            return ended.failure().get();
        }
        return this.guard.abortFailure(cause)
                .or(() -> (cause != null) ? AttemptGuard.interruption(cause, INTERRUPTED) : Optional.empty())
                .orElseGet(() -> new NetworkException(message, cause));
    }

    /** Ends the stream unless it has already ended, and returns what ended it. */
    private StreamResult end(StreamResult ended) {
        StreamResult first = this.result.compareAndExchange(null, ended);
        if (first != null) {
            return first;
        }
        closeBody();
        this.guard.close();
        return ended;
    }

    /** Closes the body, which ends a read blocked in it. */
    private void closeBody() {
        try {
            this.body.close();
        }
        catch (IOException ex) {
            // Nothing more can be read from the body either way; the stream's outcome stands.
        }
    }

    @Override
    public String toString() {
        StreamResult ended = this.result.get();
        return "SseStreamReader[" + ((ended != null) ? ended : "open") + "]";
    }
}
