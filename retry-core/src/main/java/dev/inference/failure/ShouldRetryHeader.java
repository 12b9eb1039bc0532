package dev.inference.failure;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Reads the provider's word on retrying a failed response: the header {@code x-should-retry}, which
 * OpenAI and Anthropic send on some errors and their own SDKs obey. {@code false} makes the failure
 * permanent whatever its status ({@link HttpStatusException#retryRefused()}); {@code true}, and any
 * other value, changes nothing, so that the classification stays the status's (a {@code true} on a
 * 400 does not make it retryable).
 */
public final class ShouldRetryHeader {

    /** The header's name. */
    public static final String NAME = "x-should-retry";

    private ShouldRetryHeader() {
    }

    /**
     * Tells whether a failed response's headers refuse a retry.
     *
     * @param firstHeaderValue the response's first value of a header by its (case-insensitive) name,
     *     {@code null} when absent
     * @return {@code true} when {@code x-should-retry} is {@code false}, in any case, surrounding
     *     spaces ignored
     * @throws NullPointerException if {@code firstHeaderValue} is {@code null}
     */
    public static boolean refusesRetry(Function<String, @Nullable String> firstHeaderValue) {
        Objects.requireNonNull(firstHeaderValue, "firstHeaderValue must not be null");
        String value = firstHeaderValue.apply(NAME);
        return value != null && value.trim().toLowerCase(Locale.ROOT).equals("false");
    }
}
