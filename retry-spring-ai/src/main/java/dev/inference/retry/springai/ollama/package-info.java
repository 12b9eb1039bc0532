/**
 * Ollama: {@code OllamaChatModel} rebuilt as a subclass on a {@code RestClient} and a {@code WebClient}
 * whose HTTP exchanges are retried, with its own retry template making one attempt, and
 * {@code OllamaEmbeddingModel} rebuilt on such a {@code RestClient}. Internal: no compatibility promise.
 */
@NullMarked
package dev.inference.retry.springai.ollama;

import org.jspecify.annotations.NullMarked;
