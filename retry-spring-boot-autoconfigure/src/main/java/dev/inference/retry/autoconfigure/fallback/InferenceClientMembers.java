package dev.inference.retry.autoconfigure.fallback;

import dev.inference.client.InferenceClient;
import dev.inference.retry.fallback.FallbackClient;

/**
 * The built-in kind of chain member: {@link InferenceClient} beans, chained by a {@link FallbackClient}
 * that {@link FallbackChains#inferenceClient(String)} makes.
 */
public final class InferenceClientMembers implements FallbackMemberKind {

    @Override
    public Class<?> memberType() {
        return InferenceClient.class;
    }

    @Override
    public Class<?> chainType() {
        return FallbackClient.class;
    }

    @Override
    public String factoryBeanName() {
        return FallbackChains.BEAN_NAME;
    }

    @Override
    public String factoryMethodName() {
        return "inferenceClient";
    }
}
