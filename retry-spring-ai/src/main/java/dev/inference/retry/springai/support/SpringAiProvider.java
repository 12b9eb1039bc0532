package dev.inference.retry.springai.support;

import dev.inference.retry.springai.ChatModelFailureTranslator;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * What the starter knows of one Spring AI provider, in one place: the configuration that retries its
 * models, the model classes it retries beneath their beans, the properties of its clients' own retries,
 * and the failure translators its client library brings for chat models retried by the proxy.
 *
 * <p>Each provider package holds one; the auto-configuration lists them, and that list is the only
 * place where providers are registered. Everything here is named, never referenced: a description is
 * read before the application context exists (to default the client retries) and whatever providers
 * are on the class path, so reading it must load none of the provider's classes. The translator
 * factories are called only once their library is known to be present.
 *
 * @param name the provider's name, for messages
 * @param configuration the fully qualified name of the {@code @Configuration} class that retries the
 *     provider's models, imported by the auto-configuration; it carries its own class conditions
 * @param retriedBeneath the fully qualified names of the model classes whose beans are retried beneath
 *     the bean (subclasses included), which the proxy of other chat models leaves alone
 * @param clientRetries the settings of the own retries of the clients of the provider's retried beans
 * @param translators the failure translators the provider's client library brings
 */
public record SpringAiProvider(String name, String configuration, Set<String> retriedBeneath,
        List<ClientRetries> clientRetries, List<BuiltInTranslator> translators) {

    /**
     * Creates a description.
     *
     * @param name the provider's name, for messages
     * @param configuration the fully qualified name of the {@code @Configuration} class that retries the
     *     provider's models
     * @param retriedBeneath the fully qualified names of the model classes whose beans are retried beneath
     *     the bean
     * @param clientRetries the settings of the own retries of the clients of the provider's retried beans
     * @param translators the failure translators the provider's client library brings
     * @throws NullPointerException if an argument is {@code null}
     */
    public SpringAiProvider {
        Objects.requireNonNull(name, "name must not be null");
        Objects.requireNonNull(configuration, "configuration must not be null");
        retriedBeneath = Set.copyOf(retriedBeneath);
        clientRetries = List.copyOf(clientRetries);
        translators = List.copyOf(translators);
    }

    /**
     * The property that sets the own retries of one bean's client, which the starter sets to {@code 0}
     * when the application leaves it unset, so that one layer retries. Spring AI counts retries, not
     * attempts: {@code 0} is one attempt per exchange.
     *
     * @param autoConfiguration the fully qualified name of the Spring AI auto-configuration that makes the
     *     bean; nothing is set when it is not on the class path
     * @param beanName the bean's name, whose {@code inference.retry.clients} entry may switch it off
     * @param property the property
     */
    public record ClientRetries(String autoConfiguration, String beanName, String property) {
    }

    /**
     * A failure translator that a client library brings, made only when the library is present.
     *
     * @param library the fully qualified name of a class of the library
     * @param factory makes the translator, with the clock that says what "now" is for a
     *     {@code Retry-After} date; must load the library's classes only when called
     */
    public record BuiltInTranslator(String library, Function<Clock, ChatModelFailureTranslator> factory) {
    }
}
