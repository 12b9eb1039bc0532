/**
 * The application's own chat models: retried above their HTTP exchange by a proxy of their class, with
 * the {@link dev.inference.retry.springai.ChatModelFailureTranslator}s that say what their clients'
 * exceptions mean; a chat model of Spring AI's own that no provider retries is refused, never proxied
 * blind. Internal: no compatibility promise.
 */
@NullMarked
package dev.inference.retry.springai.proxy;

import org.jspecify.annotations.NullMarked;
