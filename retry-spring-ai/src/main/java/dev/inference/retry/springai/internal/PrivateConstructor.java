package dev.inference.retry.springai.internal;

import dev.inference.retry.springai.ModelNotRetriableException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.List;
import java.util.Objects;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;

/**
 * A private constructor of a Spring AI class that a rebuild calls because nothing public makes the
 * instance it needs, such as Spring AI's OkHttp transport of a provider SDK made again on an OkHttp
 * client changed in one setting. The sibling of {@link PrivateField}, declared like it as a constant of
 * the provider's {@code *Internals} class; a constructor missing, or one that throws, fails startup with
 * a {@link ModelNotRetriableException}.
 *
 * @param declaringClass the class that declares the constructor
 * @param parameterTypes the constructor's parameter types, in order
 * @param supported the versions whose shape the caller knows, for the exception's message
 */
public record PrivateConstructor(Class<?> declaringClass, List<Class<?>> parameterTypes, String supported)
        implements PrivateMember {

    /**
     * Names a constructor.
     *
     * @param declaringClass the class that declares the constructor
     * @param parameterTypes the constructor's parameter types, in order
     * @param supported the versions whose shape the caller knows, for the exception's message
     * @throws NullPointerException if an argument is {@code null}
     */
    public PrivateConstructor {
        Objects.requireNonNull(declaringClass, "declaringClass must not be null");
        parameterTypes = List.copyOf(parameterTypes);
        Objects.requireNonNull(supported, "supported must not be null");
    }

    /**
     * Names a constructor by its parameter types.
     *
     * @param declaringClass the class that declares the constructor
     * @param supported the versions whose shape the caller knows, for the exception's message
     * @param parameterTypes the constructor's parameter types, in order
     * @throws NullPointerException if an argument is {@code null}
     */
    public PrivateConstructor(Class<?> declaringClass, String supported, Class<?>... parameterTypes) {
        this(declaringClass, List.of(parameterTypes), supported);
    }

    /**
     * Calls the constructor.
     *
     * @param <T> the declaring class
     * @param beanName the name of the chat model bean being rebuilt, for the exception
     * @param arguments the arguments, one per parameter
     * @return the new instance
     * @throws ModelNotRetriableException if the constructor does not exist, cannot be called, or
     *     throws
     */
    @SuppressWarnings("unchecked")
    public <T> T newInstance(String beanName, Object... arguments) {
        try {
            Constructor<?> constructor = this.declaringClass.getDeclaredConstructor(
                    this.parameterTypes.toArray(Class<?>[]::new));
            constructor.setAccessible(true);
            return (T) constructor.newInstance(arguments);
        }
        catch (InvocationTargetException ex) {
            throw ModelNotRetriableException.chatModel(beanName, "the constructor " + this + " threw "
                    + ex.getCause(), ex.getCause());
        }
        catch (ReflectiveOperationException | RuntimeException ex) {
            throw ModelNotRetriableException.chatModel(beanName, "the constructor " + this + " could not be called "
                    + "(this module supports " + this.supported + ")", ex);
        }
    }

    @Override
    public void registerHint(RuntimeHints hints) {
        try {
            hints.reflection().registerConstructor(
                    this.declaringClass.getDeclaredConstructor(this.parameterTypes.toArray(Class<?>[]::new)),
                    ExecutableMode.INVOKE);
        }
        catch (NoSuchMethodException ex) {
            // Another version: the rebuild fails at startup with the reason, on the JVM as in a native image.
        }
    }

    @Override
    public String toString() {
        return this.declaringClass.getName() + "(" + String.join(", ",
                this.parameterTypes.stream().map(Class::getName).toList()) + ")";
    }
}
