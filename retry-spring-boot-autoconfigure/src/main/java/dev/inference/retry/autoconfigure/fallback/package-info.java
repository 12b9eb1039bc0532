/**
 * Fallback chains declared in {@code inference.retry.fallbacks.*}: their validation and registration
 * as beans ({@link dev.inference.retry.autoconfigure.fallback.FallbackChainRegistrar}), what a chain
 * of each kind of member is made from ({@link dev.inference.retry.autoconfigure.fallback.FallbackChains}),
 * and their meters. The rules of a call are {@link dev.inference.retry.fallback.FallbackChain}'s.
 */
@NullMarked
package dev.inference.retry.autoconfigure.fallback;

import org.jspecify.annotations.NullMarked;
