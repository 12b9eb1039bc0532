/**
 * Retry for Spring AI chat and embedding models, the public part:
 * {@link dev.inference.retry.springai.ModelRetriers} (which beans are retried, and with what), the
 * {@link dev.inference.retry.springai.ChatModelFailureTranslator} SPI for chat models the starter does not
 * know, and the exceptions that fail startup. The sub-packages are internal and carry no compatibility
 * promise: {@code exchange} (the provider-neutral engine), {@code support} (what a provider integration
 * is built from), one package per provider ({@code openai}, {@code anthropic}, {@code ollama},
 * {@code google}), {@code internal} (every private member of Spring AI and of the SDKs that is read),
 * {@code proxy} (the application's own chat models) and {@code autoconfigure} (the wiring). Loaded only
 * when Spring AI is on the class path.
 */
@NullMarked
package dev.inference.retry.springai;

import org.jspecify.annotations.NullMarked;
