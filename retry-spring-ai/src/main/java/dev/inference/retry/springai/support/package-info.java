/**
 * What every provider integration is built from: its description ({@link
 * dev.inference.retry.springai.support.SpringAiProvider}) and the post-processor that rebuilds its models
 * on retried clients, keeping their class. Internal: no compatibility promise.
 */
@NullMarked
package dev.inference.retry.springai.support;

import org.jspecify.annotations.NullMarked;
