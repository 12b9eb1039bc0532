package example;

import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

/**
 * An application with the starter and nothing else: Spring AI, Redis and Micrometer are optional
 * dependencies of the starter's modules, so none of them is on the class path, and the application must
 * start and retry all the same. Exits non-zero if one of them is present or the call was not retried once.
 */
@SpringBootApplication
public class BareApplication {

    private static final List<String> ABSENT = List.of("org.springframework.ai.chat.model.ChatModel",
            "org.springframework.data.redis.connection.RedisConnectionFactory", "io.lettuce.core.RedisClient",
            "io.micrometer.core.instrument.MeterRegistry");

    @Bean
    InferenceClient provider() {
        return new FlakyClient();
    }

    public static void main(String[] args) {
        List<String> present = ABSENT.stream().filter((name) -> ClassUtils.isPresent(name, null)).toList();
        if (!present.isEmpty()) {
            System.err.println("On the class path, though nothing asked for them: " + present);
            System.exit(1);
        }
        int attempts;
        try (ConfigurableApplicationContext context = SpringApplication.run(BareApplication.class, args)) {
            InferenceResponse response = context.getBean(InferenceClient.class)
                .invoke(InferenceRequest.of("any-model", "Hello"));
            attempts = response.attempts();
            System.out.println("answer: " + response.output() + "; attempts: " + attempts);
        }
        if (attempts != 2) {
            System.err.println("Expected one retry: 2 attempts");
            System.exit(1);
        }
    }
}
