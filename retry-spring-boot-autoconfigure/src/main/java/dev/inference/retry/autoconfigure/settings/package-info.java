/**
 * The {@code inference.retry.*} settings: the bound properties
 * ({@link dev.inference.retry.autoconfigure.settings.InferenceRetryProperties}, a chain's
 * {@link dev.inference.retry.autoconfigure.settings.FallbackChainProperties}), each retried bean's
 * immutable settings resolved from them with the startup rules
 * ({@link dev.inference.retry.autoconfigure.settings.BeanRetrySettings}, in one
 * {@link dev.inference.retry.autoconfigure.settings.RetrySettings} snapshot), and the typed error of a
 * wrong property ({@link dev.inference.retry.autoconfigure.settings.InvalidRetryPropertyException}).
 * Beneath the auto-configuration: never depends on it.
 */
@NullMarked
package dev.inference.retry.autoconfigure.settings;

import org.jspecify.annotations.NullMarked;
