package dev.inference.retry.autoconfigure.fallback;

/**
 * A kind of bean that fallback chains may be made of, such as {@code InferenceClient} (built in) or
 * Spring AI's {@code ChatModel} (the starter's Spring AI module). Kinds are found with
 * {@link org.springframework.core.io.support.SpringFactoriesLoader} under this interface's name in
 * {@code META-INF/spring.factories}, since chains are registered before any bean exists; a kind whose
 * classes are not on the class path is left out.
 *
 * <p>The chain's bean is made by a factory method of a bean that the kind's auto-configuration
 * registers: {@code <factoryBeanName>.<factoryMethodName>(String chainName)}, which returns
 * {@link #chainType()}.
 */
public interface FallbackMemberKind {

    /**
     * Returns the type every member of such a chain is, and the chain's bean too.
     *
     * @return the member type, such as {@code InferenceClient}
     */
    Class<?> memberType();

    /**
     * Returns the type the chain's factory method returns, which its bean is registered with.
     *
     * @return the chain's type, assignable to {@link #memberType()}
     */
    Class<?> chainType();

    /**
     * Returns the name of the bean whose factory method makes such chains.
     *
     * @return the bean name
     */
    String factoryBeanName();

    /**
     * Returns the name of the factory method, which takes the chain's name.
     *
     * @return the method name
     */
    String factoryMethodName();
}
