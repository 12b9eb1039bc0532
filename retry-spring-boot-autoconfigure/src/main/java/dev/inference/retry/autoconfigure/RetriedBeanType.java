package dev.inference.retry.autoconfigure;

import java.util.Objects;

/**
 * A type of bean, besides {@code InferenceClient}, whose beans the auto-configuration retries by
 * bean name: their entries under {@code inference.retry.clients} are validated, each bean must
 * resolve to a complete, valid policy at startup, and the meters and the {@code inferenceretry}
 * endpoint report them under the bean's name.
 *
 * <p>Declare one as a bean, from an auto-configuration that runs before
 * {@link InferenceRetryAutoConfiguration}'s beans are made, and retry each bean of the type with the
 * {@link dev.inference.retry.Retrier} that {@link BeanRetriers#retrierFor} gives for its name. A type
 * declared {@linkplain #leftAlone left alone} (such as chat models when their retry is switched off)
 * has its beans known, so that entries naming them are not reported as naming no bean, but neither
 * validated, retried nor reported.
 */
public final class RetriedBeanType {

    private final Class<?> type;

    private final String kind;

    private final boolean retried;

    private RetriedBeanType(Class<?> type, String kind, boolean retried) {
        this.type = Objects.requireNonNull(type, "type must not be null");
        this.kind = Objects.requireNonNull(kind, "kind must not be null");
        this.retried = retried;
    }

    /**
     * Declares a type whose beans are retried.
     *
     * @param type the type, such as Spring AI's {@code ChatModel}
     * @return the declaration, whose beans messages name by the type's simple name
     * @throws NullPointerException if {@code type} is {@code null}
     */
    public static RetriedBeanType retried(Class<?> type) {
        return new RetriedBeanType(type, type.getSimpleName(), true);
    }

    /**
     * Declares a type whose beans are retried and that messages name as a kind of bean of a wider type,
     * such as one provider's embedding model, named as an {@code EmbeddingModel}.
     *
     * @param type the type, such as {@code OpenAiEmbeddingModel}
     * @param kind what messages call its beans, such as {@code EmbeddingModel}
     * @return the declaration
     * @throws NullPointerException if an argument is {@code null}
     */
    public static RetriedBeanType retried(Class<?> type, String kind) {
        return new RetriedBeanType(type, kind, true);
    }

    /**
     * Declares a type whose beans may be named under {@code inference.retry.clients} but are left
     * alone: nothing of them is validated, retried or reported.
     *
     * @param type the type
     * @return the declaration
     * @throws NullPointerException if {@code type} is {@code null}
     */
    public static RetriedBeanType leftAlone(Class<?> type) {
        return new RetriedBeanType(type, type.getSimpleName(), false);
    }

    /**
     * Returns the type.
     *
     * @return the type whose beans this declaration is about
     */
    public Class<?> type() {
        return this.type;
    }

    /**
     * Returns what messages call the beans of the type.
     *
     * @return such as {@code ChatModel}; the type's simple name unless declared otherwise
     */
    public String kind() {
        return this.kind;
    }

    /**
     * Tells whether beans of the type are retried.
     *
     * @return {@code true} if they are, {@code false} if they are left alone
     */
    public boolean isRetried() {
        return this.retried;
    }

    @Override
    public String toString() {
        return (this.retried ? "retried " : "left alone ") + this.type.getName();
    }
}
