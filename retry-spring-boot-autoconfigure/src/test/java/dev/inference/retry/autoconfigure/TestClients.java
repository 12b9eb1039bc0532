package dev.inference.retry.autoconfigure;

import dev.inference.client.InferenceClient;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Lazy;

/**
 * Configurations of {@link ScriptedClient} beans shared by the auto-configuration tests. Every
 * client in a context plays the one {@link Script} bean, so a test scripts the failures of all of
 * them at once.
 */
final class TestClients {

    /** A complete, valid default policy: 1 stable retry after 100ms, 3 attempts, delays capped at 1s. */
    static final String[] POLICY = { "inference.retry.stable-retries=1", "inference.retry.stable-delay=100ms",
            "inference.retry.max-attempts=3", "inference.retry.max-delay=1s" };

    private TestClients() {
    }

    /** The one {@link Script} bean; imported by every configuration that declares a client. */
    @Configuration(proxyBeanMethods = false)
    static class SharedScript {

        @Bean
        Script script() {
            return new Script();
        }
    }

    /** One eager client bean, {@code openai}. */
    @Configuration(proxyBeanMethods = false)
    @Import(SharedScript.class)
    static class OneClient {

        @Bean
        InferenceClient openai(Script script) {
            return new ScriptedClient(script);
        }
    }

    /** Two eager client beans, {@code openai} and {@code local}. */
    @Configuration(proxyBeanMethods = false)
    @Import(OneClient.class)
    static class TwoClients {

        @Bean
        InferenceClient local(Script script) {
            return new ScriptedClient(script);
        }
    }

    /** An eager {@code openai} client bean and a {@code @Lazy} one, {@code local}. */
    @Configuration(proxyBeanMethods = false)
    @Import(OneClient.class)
    static class LazyLocal {

        @Bean
        @Lazy
        InferenceClient local(Script script) {
            return new ScriptedClient(script);
        }
    }

    /** A {@code @Lazy} client bean named {@code lazy}, added to a configuration that has others. */
    @Configuration(proxyBeanMethods = false)
    @Import(SharedScript.class)
    static class AlsoLazy {

        @Bean
        @Lazy
        InferenceClient lazy(Script script) {
            return new ScriptedClient(script);
        }
    }

    /**
     * A raw {@code FactoryBean} named {@code factoryMade}, registered after the clients of the
     * configurations it is added to: the type of its product is known once the factory is made.
     */
    @Configuration(proxyBeanMethods = false)
    @Import(SharedScript.class)
    static class UntypedFactoryMade {

        @Bean
        @SuppressWarnings("rawtypes")
        FactoryBean factoryMade(Script script) {
            return new InferenceRetryAutoConfigurationTests.ClientFactory(script);
        }
    }

    /** A {@code @Lazy} raw {@code FactoryBean} named {@code lazyFactoryMade}. */
    @Configuration(proxyBeanMethods = false)
    @Import(SharedScript.class)
    static class LazyUntypedFactoryMade {

        @Bean
        @Lazy
        @SuppressWarnings("rawtypes")
        FactoryBean lazyFactoryMade(Script script) {
            return new InferenceRetryAutoConfigurationTests.ClientFactory(script);
        }
    }
}
