/**
 * Every other chat model, such as an application's own: retried above its HTTP exchange by a proxy of
 * its class, with the {@link dev.inference.retry.springai.ChatModelFailureTranslator}s that say what its
 * client's exceptions mean. Internal: no compatibility promise.
 */
@NullMarked
package dev.inference.retry.springai.proxy;

import org.jspecify.annotations.NullMarked;
