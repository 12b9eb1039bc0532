package dev.inference.retry.autoconfigure;

import dev.inference.client.CallContext;
import dev.inference.retry.time.Sleeper;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.random.RandomGenerator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Runs every retrying client in virtual time: waits are recorded instead of slept, and jitter is
 * always exactly 1, so that every delay equals its slot.
 */
@Configuration(proxyBeanMethods = false)
class VirtualTime {

    @Bean
    Waits waits() {
        return new Waits();
    }

    @Bean
    RetrierCustomizer virtualTimeCustomizer(Waits waits) {
        return (beanName, builder) -> builder.sleeper(waits).random(new MidpointRandom());
    }

    /** The waits that were asked for, in order, none of them slept. */
    static final class Waits implements Sleeper {

        private final List<Duration> waits = new CopyOnWriteArrayList<>();

        @Override
        public void sleep(Duration delay, CallContext context) {
            this.waits.add(delay);
        }

        List<Duration> all() {
            return List.copyOf(this.waits);
        }
    }

    /** A generator whose {@code nextDouble()} is always 0.5, which makes the jitter factor 1. */
    static final class MidpointRandom implements RandomGenerator {

        @Override
        public long nextLong() {
            return 0;
        }

        @Override
        public double nextDouble() {
            return 0.5;
        }
    }
}
