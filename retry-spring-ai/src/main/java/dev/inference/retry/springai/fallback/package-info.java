/**
 * Fallback chains of Spring AI chat models: a {@link org.springframework.ai.chat.model.ChatModel}
 * that answers from the first of its member models that can
 * ({@link dev.inference.retry.springai.fallback.FallbackChatModel}), registered from
 * {@code inference.retry.fallbacks.*} when its members are chat model beans.
 */
@NullMarked
package dev.inference.retry.springai.fallback;

import org.jspecify.annotations.NullMarked;
