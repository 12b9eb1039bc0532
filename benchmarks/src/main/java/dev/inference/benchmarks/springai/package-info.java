/**
 * A harness that measures what the starter costs a Spring AI application on the success path: Spring
 * AI's OpenAI and Anthropic chat models as the starter retries them, beside the same models left alone,
 * against a provider on a loopback port. See {@code docs/benchmarks.md} for the command and the results.
 */
@NullMarked
package dev.inference.benchmarks.springai;

import org.jspecify.annotations.NullMarked;
