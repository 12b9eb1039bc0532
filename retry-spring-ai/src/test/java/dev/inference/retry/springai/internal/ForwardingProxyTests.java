package dev.inference.retry.springai.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class ForwardingProxyTests {

    /** A client as the SDKs make them: a service made once, and copies of itself with other options. */
    interface Client {

        Service service();

        Client withOptions(String options);

        String name();
    }

    interface Service {

        String name();
    }

    record Sdk(String name, Service service) implements Client {

        @Override
        public Client withOptions(String options) {
            return new Sdk(options, this.service);
        }
    }

    private final AtomicInteger wrapped = new AtomicInteger();

    private Client wrap(Client client) {
        Map<String, Function<Object, Object>> wrappers = Map.of("service", (service) -> {
            this.wrapped.incrementAndGet();
            return ForwardingProxy.of(Service.class, (Service) service, "Wrapped", (method, args) -> Optional.empty());
        }, "withOptions", (view) -> wrap((Client) view));
        return ForwardingProxy.of(Client.class, client, "Wrapped", ForwardingProxy.wrappingResults(client, wrappers));
    }

    @Nested
    class WrappingResults {

        @Test
        void wrapsAViewTheTargetHandsOutAgainOnce() {
            Client client = wrap(new Sdk("sdk", () -> "chat"));

            Service first = client.service();
            Service second = client.service();

            assertThat(second).isSameAs(first);
            assertThat(second.name()).isEqualTo("chat");
            assertThat(wrapped).hasValue(1);
        }

        @Test
        void wrapsANewViewOfTheTargetAnew() {
            Service[] current = { () -> "first" };
            Client sdk = new Client() {

                @Override
                public Service service() {
                    return current[0];
                }

                @Override
                public Client withOptions(String options) {
                    return this;
                }

                @Override
                public String name() {
                    return "sdk";
                }
            };
            Client client = wrap(sdk);
            Service first = client.service();

            current[0] = () -> "second";
            Service second = client.service();

            assertThat(second).isNotSameAs(first);
            assertThat(second.name()).isEqualTo("second");
            assertThat(wrapped).hasValue(2);
        }

        @Test
        void wrapsWhatAMethodWithArgumentsReturnsOnEveryCall() {
            Client client = wrap(new Sdk("sdk", () -> "chat"));

            Client first = client.withOptions("same");
            Client second = client.withOptions("same");

            assertThat(second).isNotSameAs(first);
            assertThat(ForwardingProxy.isProxy(second)).isTrue();
            assertThat(second.name()).isEqualTo("same");
        }

        @Test
        void forwardsTheMethodsItDoesNotWrap() {
            Client client = wrap(new Sdk("sdk", () -> "chat"));

            assertThat(client.name()).isEqualTo("sdk");
        }
    }
}
