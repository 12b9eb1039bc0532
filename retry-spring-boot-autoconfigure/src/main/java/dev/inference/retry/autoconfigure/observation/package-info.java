/**
 * Micrometer {@code Observation}s of retried inference calls: one per attempt, opt-in with
 * {@code inference.retry.observations.enabled=true}.
 */
@NullMarked
package dev.inference.retry.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
