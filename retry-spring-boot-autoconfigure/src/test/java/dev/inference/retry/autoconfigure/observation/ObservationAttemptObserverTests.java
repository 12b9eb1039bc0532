package dev.inference.retry.autoconfigure.observation;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceClient;
import dev.inference.client.InferenceRequest;
import dev.inference.client.InferenceResponse;
import dev.inference.client.StreamReader;
import dev.inference.failure.HttpStatusException;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Policy;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryClient;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.random.RandomGenerator;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ObservationAttemptObserverTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Say hello");

    /** Waits 100 ms, then 200 ms, between its three attempts. */
    private static final Policy THREE_ATTEMPTS = new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1));

    private final TestObservationRegistry registry = TestObservationRegistry.create();

    /** The contexts of the observations, in the order they stopped. */
    private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

    {
        this.registry.observationConfig().observationHandler(new ObservationHandler<>() {

            @Override
            public void onStop(Observation.Context context) {
                ObservationAttemptObserverTests.this.stopped.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
    }

    private final Deque<Supplier<InferenceResponse>> script = new ArrayDeque<>();

    private final InferenceClient inner = new InferenceClient() {

        @Override
        public InferenceResponse invoke(InferenceRequest request, CallContext context) {
            return ObservationAttemptObserverTests.this.script.removeFirst().get();
        }

        @Override
        public StreamReader stream(InferenceRequest request, CallContext context) {
            throw new UnsupportedOperationException("unary calls only");
        }
    };

    private RetryClient client() {
        return RetryClient.of(this.inner, Retrier.builder(THREE_ATTEMPTS)
            .name("openai")
            .random(new NoJitter())
            .sleeper((delay, context) -> {
            })
            .observer(new ObservationAttemptObserver(this.registry, null))
            .build());
    }

    private void overloaded() {
        this.script.add(() -> {
            throw new HttpStatusException(503, "overloaded", null);
        });
    }

    @Test
    void observesThreeAttemptsOfACallThatSucceedsAtTheThird() {
        overloaded();
        overloaded();
        this.script.add(() -> InferenceResponse.of("hello"));

        client().invoke(REQUEST, CallContext.background());

        assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("inference.retry.attempt", 3);
        assertThat(this.stopped).extracting(ObservationAttemptObserverTests::keyValues)
            .containsExactly(
                    List.of("attempt=1", "client=openai", "error=http_503", "operation=invoke",
                            "outcome=retryable_failure", "retry.delay=PT0.1S"),
                    List.of("attempt=2", "client=openai", "error=http_503", "operation=invoke",
                            "outcome=retryable_failure", "retry.delay=PT0.2S"),
                    List.of("attempt=3", "client=openai", "error=none", "operation=invoke", "outcome=success"));
    }

    @Test
    void recordsEachScheduledRetryAsAnEventOfTheFailedAttempt() {
        overloaded();
        this.script.add(() -> InferenceResponse.of("hello"));

        client().invoke(REQUEST, CallContext.background());

        assertThat(this.registry).hasObservationWithNameEqualTo("inference.retry.attempt")
            .that()
            .hasEvent(ObservationAttemptObserver.RETRY_SCHEDULED)
            .hasError();
    }

    @Test
    void stopsEveryObservationItStarts() {
        overloaded();
        overloaded();
        overloaded();

        assertThat(catchThrowable(() -> client().invoke(REQUEST, CallContext.background())))
            .isInstanceOf(ExhaustedException.class);

        assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("inference.retry.attempt", 3)
            .doesNotHaveAnyRemainingCurrentObservation();
        assertThat(this.stopped).hasSize(3);
    }

    @Test
    void usesAConventionOfTheApplications() {
        this.script.add(() -> InferenceResponse.of("hello"));
        RetryAttemptObservationConvention renamed = new DefaultRetryAttemptObservationConvention() {

            @Override
            public String getName() {
                return "llm.attempt";
            }
        };
        RetryClient client = RetryClient.of(this.inner, Retrier.builder(THREE_ATTEMPTS)
            .observer(new ObservationAttemptObserver(this.registry, renamed))
            .build());

        client.invoke(REQUEST, CallContext.background());

        assertThat(this.registry).hasSingleObservationThat().hasNameEqualTo("llm.attempt");
    }

    /** Jitter factor 1 exactly. */
    private static final class NoJitter implements RandomGenerator {

        @Override
        public double nextDouble() {
            return 0.5;
        }

        @Override
        public long nextLong() {
            throw new UnsupportedOperationException("only nextDouble() is used");
        }
    }

    private static List<String> keyValues(Observation.Context context) {
        return context.getAllKeyValues().stream().map((KeyValue each) -> each.getKey() + "=" + each.getValue()).toList();
    }
}
