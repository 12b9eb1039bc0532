/**
 * What every provider integration is built from: its description ({@link
 * dev.inference.retry.springai.support.SpringAiProvider}), the post-processor that rebuilds its models on
 * retried clients, keeping their class, and the reader of the private fields a rebuild needs. Internal:
 * no compatibility promise.
 */
@NullMarked
package dev.inference.retry.springai.support;

import org.jspecify.annotations.NullMarked;
