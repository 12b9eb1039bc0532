/**
 * JMH benchmarks of {@link dev.inference.retry.RetryClient} side by side with the retry support of
 * Resilience4j, Spring Framework, Spring Retry and Failsafe, and a harness that measures how fast a
 * cancelled wait wakes up and how closely a wait keeps to its delay.
 *
 * <p>Not a library: the module is packaged as one executable jar whose main class is JMH's. See
 * {@code docs/benchmarks.md} for the commands and the results.
 */
@NullMarked
package dev.inference.benchmarks;

import org.jspecify.annotations.NullMarked;
