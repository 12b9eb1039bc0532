package example;

import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The README's quick start: the starter, its YAML and one {@code InferenceClient} bean whose provider is
 * overloaded once. Makes one call, prints what {@code inference.retry.attempts} counted, and exits
 * non-zero unless the call took two attempts and both were counted.
 */
@SpringBootApplication
public class QuickstartApplication {

    @Bean
    InferenceClient provider() {
        return new FlakyClient();
    }

    public static void main(String[] args) {
        boolean asExpected;
        try (ConfigurableApplicationContext context = SpringApplication.run(QuickstartApplication.class, args)) {
            InferenceResponse response = context.getBean(InferenceClient.class)
                .invoke(InferenceRequest.of("any-model", "Hello"));
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            double counted = 0;
            for (Counter counter : meters.find("inference.retry.attempts").counters()) {
                System.out.println("inference.retry.attempts " + counter.getId().getTags() + " = " + counter.count());
                counted += counter.count();
            }
            double failed = meters.get("inference.retry.attempts").tag("outcome", "retryable_failure").counter().count();
            System.out.println("answer: " + response.output() + "; attempts: " + response.attempts() + "; counted: "
                    + counted);
            asExpected = response.attempts() == 2 && counted == 2 && failed == 1;
        }
        if (!asExpected) {
            System.err.println("Expected one retry: 2 attempts, counted as 1 retryable failure and 1 success");
            System.exit(1);
        }
    }
}
