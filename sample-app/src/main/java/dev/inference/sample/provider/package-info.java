/**
 * An embedded, deliberately flaky OpenAI-compatible provider (chat completions and embeddings) on a
 * loopback port, so that the sample shows real retries over real sockets without a network or an API
 * key.
 */
@NullMarked
package dev.inference.sample.provider;

import org.jspecify.annotations.NullMarked;
