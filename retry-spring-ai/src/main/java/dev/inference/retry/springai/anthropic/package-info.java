/**
 * Anthropic: {@code AnthropicChatModel} rebuilt, keeping its class, on the Anthropic Java SDK's clients
 * whose HTTP exchanges are retried; the SDK's failures, its stream preamble, its cancellable streams and
 * its native hints. Internal: no compatibility promise.
 */
@NullMarked
package dev.inference.retry.springai.anthropic;

import org.jspecify.annotations.NullMarked;
