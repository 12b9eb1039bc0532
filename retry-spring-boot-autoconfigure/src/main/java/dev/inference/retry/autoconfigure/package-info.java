/**
 * Spring Boot auto-configuration of the retry decorator: binds {@code inference.retry.*}, validates
 * a complete policy for every {@link dev.inference.client.InferenceClient} bean at startup, wraps each
 * bean in a {@link dev.inference.retry.RetryClient} named after it, and reports attempts to
 * Micrometer and the {@code inferenceretry} actuator endpoint when those are present.
 */
@NullMarked
package dev.inference.retry.autoconfigure;

import org.jspecify.annotations.NullMarked;
