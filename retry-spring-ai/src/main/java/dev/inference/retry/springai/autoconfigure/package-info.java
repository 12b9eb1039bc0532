/**
 * The wiring of the Spring AI integration: the auto-configurations, the one list of the providers whose
 * models are retried beneath their beans ({@code SpringAiProviders}), the defaults that turn the retried
 * clients' own retries off, and the failure analyzer. Internal: no compatibility promise, except the
 * auto-configuration class names, which applications may exclude.
 */
@NullMarked
package dev.inference.retry.springai.autoconfigure;

import org.jspecify.annotations.NullMarked;
