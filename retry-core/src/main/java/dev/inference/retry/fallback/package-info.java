/**
 * Fallback chains: a call answered by the first of several models that can, each member retried on
 * its own, once, with its own policy. {@link dev.inference.retry.fallback.FallbackChain} holds the
 * rules of a call (which member next, what falls over, what is skipped);
 * {@link dev.inference.retry.fallback.FallbackClient} is the chain of {@code InferenceClient}s. Built on
 * {@code dev.inference.retry}, which never depends on this package; the chain's exceptions
 * ({@code FallbackExhaustedException}, {@code CoolingDownException}) live there, as the retries throw
 * or extend them.
 */
@NullMarked
package dev.inference.retry.fallback;

import org.jspecify.annotations.NullMarked;
