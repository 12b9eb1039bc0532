package dev.inference.sample;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * Runs the whole sample app on a random port, with its embedded provider failing only as scripted
 * (every fault fraction 0). Applications cached side by side by the test framework stay out of
 * Micrometer's global registry, which would otherwise keep every one of them reachable.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "sample.provider.faults.rate-limited=0", "sample.provider.faults.unavailable=0",
        "sample.provider.faults.server-error=0", "sample.provider.faults.dropped=0", "sample.provider.faults.cut=0",
        "management.metrics.use-global-registry=false" })
@interface SampleAppTest {
}
