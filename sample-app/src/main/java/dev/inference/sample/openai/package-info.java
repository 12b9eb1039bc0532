/**
 * An {@link dev.inference.client.InferenceClient} for OpenAI-compatible chat-completion endpoints,
 * built on the JDK's {@link java.net.http.HttpClient}, that reports every transport and status
 * failure as one of the typed failures of {@code dev.inference.failure}.
 */
@NullMarked
package dev.inference.sample.openai;

import org.jspecify.annotations.NullMarked;
