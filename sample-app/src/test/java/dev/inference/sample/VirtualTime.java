package dev.inference.sample;

import dev.inference.retry.autoconfigure.RetrierCustomizer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Runs the retrying clients in virtual time: waits are recorded instead of slept, and the jitter is
 * fixed at exactly 1, so every wait is the schedule's slot (or the provider's Retry-After).
 */
@TestConfiguration(proxyBeanMethods = false)
class VirtualTime {

    /** The waits the retrying clients would have made, in order. */
    static final class Waits {

        private final List<Duration> waits = new CopyOnWriteArrayList<>();

        List<Duration> all() {
            return List.copyOf(this.waits);
        }

        void clear() {
            this.waits.clear();
        }
    }


    @Bean
    Waits waits() {
        return new Waits();
    }

    @Bean
    RetrierCustomizer virtualTime(Waits waits) {
        return (beanName, builder) -> builder.random(NoJitter.INSTANCE)
                .sleeper((delay, context) -> waits.waits.add(delay));
    }
}
