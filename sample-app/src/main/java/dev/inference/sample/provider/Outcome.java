package dev.inference.sample.provider;

/**
 * What the {@link FlakyProvider} does with one request.
 */
public enum Outcome {

    /** Answers 200 with the completion, or streams it to the end and sends {@code data: [DONE]}. */
    SUCCESS,

    /** Answers 429 with both {@code Retry-After} (whole seconds) and {@code retry-after-ms}. */
    RATE_LIMITED,

    /**
     * Answers 429 with a {@code Retry-After}, as OpenAI answers an account whose quota is used up: its
     * error code {@code insufficient_quota} says that no wait helps. Only ever scripted.
     */
    QUOTA_EXCEEDED,

    /** Answers 503, as an overloaded provider does. */
    UNAVAILABLE,

    /** Answers 500. */
    SERVER_ERROR,

    /** Answers 400, which no retry can mend; only ever scripted, never drawn at random. */
    BAD_REQUEST,

    /** Resets the connection after reading the request, without sending a byte. */
    DROP,

    /**
     * Closes the connection part-way through a 200 response: a stream after its first two chunks,
     * without {@code [DONE]}; a unary response half-way through the body its headers announced.
     */
    CUT,

    /**
     * Reads the request and then sends nothing, holding the connection until the client gives
     * up; only ever scripted, for timeouts and cancellation.
     */
    STALL,

    /**
     * Sends nothing for the provider's slow delay, then the whole answer: a hung provider, for an
     * {@code attempt-timeout} (or a stream's {@code first-token-timeout}) to act on.
     */
    SLOW,

    /**
     * A stream: its headers and the role chunk at once, then only SSE comments ({@code : keep-alive},
     * about one a second) for the slow delay, then its content, as a gateway keeps a model that has
     * not begun alive; for a {@code first-token-timeout} to act on. Anything else: {@link #SLOW}.
     */
    KEEP_ALIVE,

    /**
     * A stream: its first content chunk at once, then nothing for the slow delay, then the rest; for a
     * {@code stream-idle-timeout} to act on. Anything else: {@link #SLOW}.
     */
    STALL_MID_STREAM
}
