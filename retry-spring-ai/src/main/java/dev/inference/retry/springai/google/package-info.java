/**
 * Google GenAI: {@code GoogleGenAiChatModel} rebuilt as a subclass on a Google GenAI SDK client whose
 * OkHttp client retries the model's HTTP exchanges, with the SDK's own retries and the model's retry
 * template making one attempt; Gemini's error bodies and stream errors, read by their {@code status}
 * and {@code google.rpc.RetryInfo}. Internal: no compatibility promise.
 */
@NullMarked
package dev.inference.retry.springai.google;

import org.jspecify.annotations.NullMarked;
