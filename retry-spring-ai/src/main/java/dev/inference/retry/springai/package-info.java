/**
 * Retry for Spring AI chat models: every chat model bean whose name a {@link
 * dev.inference.retry.springai.ChatModelRetriers} gives a {@link dev.inference.retry.Retrier} keeps its
 * class and has each of its provider HTTP exchanges retried beneath it, with the model client's own
 * retries off. Any other chat model, such as an application's own, is retried above its exchange by a
 * proxy of its class, whose {@link dev.inference.retry.springai.ChatModelFailureTranslator}s say what its
 * client's exceptions mean. Loaded only when Spring AI is on the class path.
 */
@NullMarked
package dev.inference.retry.springai;

import org.jspecify.annotations.NullMarked;
