package dev.inference.retry;

/**
 * The kind of inference call an attempt belongs to.
 */
public enum Operation {

    /** A unary call, {@link dev.inference.client.InferenceClient#invoke}. */
    INVOKE,

    /** The establishment of a streamed call, {@link dev.inference.client.InferenceClient#stream}. */
    STREAM
}
