package dev.inference.client;

import java.util.Objects;

/**
 * One immutable chunk of a streamed response, such as the payload of one server-sent event.
 */
public final class StreamEvent {

    private final String data;

    private StreamEvent(String data) {
        this.data = data;
    }

    /**
     * Creates an event.
     *
     * @param data the chunk's payload; may be empty
     * @return the event
     * @throws NullPointerException if {@code data} is {@code null}
     */
    public static StreamEvent of(String data) {
        return new StreamEvent(Objects.requireNonNull(data, "data must not be null"));
    }

    /**
     * Returns the chunk's payload.
     *
     * @return the payload, never {@code null}
     */
    public String data() {
        return this.data;
    }

    @Override
    public boolean equals(Object other) {
        return this == other || (other instanceof StreamEvent that && this.data.equals(that.data));
    }

    @Override
    public int hashCode() {
        return this.data.hashCode();
    }

    @Override
    public String toString() {
        return "StreamEvent[data=" + this.data.length() + " chars]";
    }
}
