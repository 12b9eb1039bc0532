/**
 * OpenAI: {@code OpenAiChatModel} and {@code OpenAiEmbeddingModel} rebuilt, keeping their class, on the
 * OpenAI Java SDK's clients whose HTTP exchanges are retried; the SDK's failures, its stream preamble,
 * its cancellable streams and its native hints. Internal: no compatibility promise.
 */
@NullMarked
package dev.inference.retry.springai.openai;

import org.jspecify.annotations.NullMarked;
