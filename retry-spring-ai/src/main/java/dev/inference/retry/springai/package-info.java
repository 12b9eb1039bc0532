/**
 * Retry for Spring AI chat models: every chat model bean whose name a {@link
 * dev.inference.retry.springai.ChatModelRetriers} gives a {@link dev.inference.retry.Retrier} keeps its
 * class and has each of its provider HTTP exchanges retried beneath it, with the model client's own
 * retries off. Loaded only when Spring AI is on the class path.
 */
@NullMarked
package dev.inference.retry.springai;

import org.jspecify.annotations.NullMarked;
