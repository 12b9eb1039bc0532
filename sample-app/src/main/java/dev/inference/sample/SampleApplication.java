package dev.inference.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The sample application: a web app whose inference calls go through the retry starter.
 */
@SpringBootApplication
public class SampleApplication {

    /**
     * Starts the sample application.
     *
     * @param args command-line arguments, passed to Spring Boot
     */
    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
