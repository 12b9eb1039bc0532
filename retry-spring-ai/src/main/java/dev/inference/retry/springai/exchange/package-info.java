/**
 * The provider-neutral engine that retries one HTTP exchange beneath a Spring AI model: for a Stainless
 * SDK's HTTP client (OpenAI, Anthropic) the retried exchanges, blocking and asynchronous, with the peek
 * at a stream's first event; for Spring's {@code RestClient} and {@code WebClient} an interceptor and
 * an exchange filter; and the typed failures all of them build. Imports no provider SDK. Internal: no
 * compatibility promise.
 */
@NullMarked
package dev.inference.retry.springai.exchange;

import org.jspecify.annotations.NullMarked;
