/**
 * The retry decorator for inference clients: its policy, its backoff schedule, the classification
 * of failures and the events it reports.
 *
 * <p>{@link dev.inference.retry.RetryClient} is the entry point. Plain Java with no framework
 * dependency; the Spring Boot integration lives in {@code dev.inference.retry.autoconfigure}.
 */
@NullMarked
package dev.inference.retry;

import org.jspecify.annotations.NullMarked;
