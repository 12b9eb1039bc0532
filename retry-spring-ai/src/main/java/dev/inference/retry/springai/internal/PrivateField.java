package dev.inference.retry.springai.internal;

import dev.inference.retry.springai.ModelNotRetriableException;
import java.lang.reflect.Field;
import java.util.Objects;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.util.ReflectionUtils;

/**
 * A private field of a Spring AI model or of its provider SDK that a rebuild reads because nothing
 * public gives its value. Declared only in this package, as a constant of the provider's
 * {@code *Internals} class, beside the version it was read from.
 *
 * <p>Trap: a field that is missing (another version) or {@code null} fails the rebuild, and so startup,
 * with a {@link ModelNotRetriableException} naming the field and the versions this module supports;
 * nothing is defaulted.
 *
 * @param declaringClass the class that declares the field
 * @param name the field's name
 * @param supported the versions whose shape the reader knows, for the exception's message
 */
public record PrivateField(Class<?> declaringClass, String name, String supported) implements PrivateMember {

    /** What the exception calls the bean, whatever kind of model it is. */
    private static final String KIND = "model";

    /**
     * Names a field.
     *
     * @param declaringClass the class that declares the field
     * @param name the field's name
     * @param supported the versions whose shape the reader knows, for the exception's message
     * @throws NullPointerException if an argument is {@code null}
     */
    public PrivateField {
        Objects.requireNonNull(declaringClass, "declaringClass must not be null");
        Objects.requireNonNull(name, "name must not be null");
        Objects.requireNonNull(supported, "supported must not be null");
    }

    /**
     * Reads the field.
     *
     * @param <T> the field's type
     * @param target the object whose field it is
     * @param beanName the name of the model bean being rebuilt, for the exception
     * @return the field's value
     * @throws ModelNotRetriableException if the field does not exist, cannot be read, or is null
     */
    // The type is the one the caller assigns the value to: each constant names a field of a known type.
    @SuppressWarnings({ "unchecked", "TypeParameterUnusedInFormals" })
    public <T> T read(Object target, String beanName) {
        Object value;
        try {
            Field field = this.declaringClass.getDeclaredField(this.name);
            field.setAccessible(true);
            value = field.get(target);
        }
        catch (NoSuchFieldException | IllegalAccessException | RuntimeException ex) {
            throw new ModelNotRetriableException(KIND, beanName,
                    "the field " + this + " could not be read (this module supports " + this.supported + ")", ex);
        }
        if (value == null) {
            throw new ModelNotRetriableException(KIND, beanName, "the field " + this + " is null", null);
        }
        return (T) value;
    }

    /**
     * Tells whether the class declares the field: for a constant of another version to be chosen
     * instead of this one.
     *
     * @return {@code true} if the field exists
     */
    public boolean isPresent() {
        for (Field field : this.declaringClass.getDeclaredFields()) {
            if (field.getName().equals(this.name)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void registerHint(RuntimeHints hints) {
        Field field = ReflectionUtils.findField(this.declaringClass, this.name);
        if (field != null) {
            hints.reflection().registerField(field);
        }
    }

    @Override
    public String toString() {
        return this.declaringClass.getName() + "." + this.name;
    }
}
