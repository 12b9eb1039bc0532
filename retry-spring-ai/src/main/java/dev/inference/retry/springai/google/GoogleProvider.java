package dev.inference.retry.springai.google;

import dev.inference.retry.springai.support.SpringAiProvider;
import dev.inference.retry.springai.support.SpringAiProvider.BuiltInTranslator;
import java.util.List;
import java.util.Set;

/**
 * Google GenAI (the Gemini API and Vertex AI), as the starter retries it: {@code GoogleGenAiChatModel}
 * rebuilt on a Google GenAI SDK client whose OkHttp client retries its model exchanges, beneath the bean
 * (see {@link GoogleGenAiChatModelRebuild}). Spring AI has no property for the SDK's own retries: the
 * rebuilt model's client turns them off for its model exchanges, and the model's retry template makes
 * one attempt.
 */
public final class GoogleProvider {

    /** The description, which loads none of Google's classes. */
    public static final SpringAiProvider DESCRIPTION = new SpringAiProvider("Google GenAI",
            "dev.inference.retry.springai.google.GoogleRetryConfiguration",
            Set.of("org.springframework.ai.google.genai.GoogleGenAiChatModel"), List.of(),
            List.of(new BuiltInTranslator("com.google.genai.errors.ApiException",
                    (clock) -> GoogleFailures.translator())));

    private GoogleProvider() {
    }
}
