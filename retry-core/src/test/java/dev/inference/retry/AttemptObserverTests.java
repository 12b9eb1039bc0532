package dev.inference.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inference.client.CallContext;
import dev.inference.client.InferenceRequest;
import dev.inference.failure.HttpStatusException;
import dev.inference.fixtures.FixedRandom;
import dev.inference.fixtures.MutableClock;
import dev.inference.fixtures.ScriptedClient;
import dev.inference.retry.cooldown.LocalCooldownStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * What an {@link AttemptObserver} of a {@link RetryClient} sees, in virtual time.
 */
class AttemptObserverTests {

    private static final InferenceRequest REQUEST = InferenceRequest.of("gpt-test", "Say hello");

    /** Waits 100 ms, then 200 ms, between its three attempts. */
    private static final Policy THREE_ATTEMPTS = new Policy(1, Duration.ofMillis(100), 3, Duration.ofSeconds(1));

    private final List<String> seen = new ArrayList<>();

    private final ScriptedClient inner = ScriptedClient.script();

    private final AttemptObserver observer = (client, operation, attempt) -> {
        this.seen.add("started " + client + " " + operation + " #" + attempt + " after " + this.inner.attempts());
        return (outcome, retryDelay) -> this.seen.add("ended #" + outcome.attempt() + " " + describe(outcome.failure())
                + ((retryDelay != null) ? ", retry in " + retryDelay : ", last"));
    };

    private static String describe(@Nullable Throwable failure) {
        return (failure instanceof HttpStatusException status) ? "http_" + status.status()
                : (failure != null) ? failure.getClass().getSimpleName() : "success";
    }

    private RetryClient client() {
        return RetryClient.of(this.inner, Retrier.builder(THREE_ATTEMPTS)
            .name("chat")
            .random(FixedRandom.noJitter())
            .sleeper((delay, context) -> {
            })
            .observer(this.observer)
            .build());
    }

    @Test
    void seesAnAttemptThatThrewAnErrorEndWithIt() {
        this.inner.thenFail(new HttpStatusException(503, "overloaded", null)).thenFail(new AssertionError("a bug"));

        assertThat(catchThrowable(() -> client().invoke(REQUEST, CallContext.background())))
            .isInstanceOf(AssertionError.class);

        assertThat(this.seen).containsExactly("started chat INVOKE #1 after 0", "ended #1 http_503, retry in PT0.1S",
                "started chat INVOKE #2 after 1", "ended #2 AssertionError, last");
    }

    @Test
    void seesEachAttemptFromBeforeItIsMadeToTheDecisionAfterIt() {
        this.inner.thenFail(new HttpStatusException(503, "overloaded", null), new HttpStatusException(503, "overloaded", null))
            .thenRespond("hello");

        client().invoke(REQUEST, CallContext.background());

        assertThat(this.seen).containsExactly("started chat INVOKE #1 after 0", "ended #1 http_503, retry in PT0.1S",
                "started chat INVOKE #2 after 1", "ended #2 http_503, retry in PT0.2S", "started chat INVOKE #3 after 2",
                "ended #3 success, last");
    }

    @Test
    void seesThatAPermanentFailureEndsTheCall() {
        this.inner.thenFail(new HttpStatusException(400, "bad request", null));

        assertThat(catchThrowable(() -> client().stream(REQUEST, CallContext.background())))
            .isInstanceOf(HttpStatusException.class);

        assertThat(this.seen).containsExactly("started chat STREAM #1 after 0", "ended #1 http_400, last");
    }

    @Test
    void seesThatTheLastAttemptEndsTheCall() {
        HttpStatusException overloaded = new HttpStatusException(503, "overloaded", null);
        this.inner.thenFail(overloaded, overloaded, overloaded);

        assertThat(catchThrowable(() -> client().invoke(REQUEST, CallContext.background())))
            .isInstanceOf(ExhaustedException.class);

        assertThat(this.seen).last().isEqualTo("ended #3 http_503, last");
    }

    @Test
    void startsAfterTheWaitForACooldown() {
        MutableClock clock = MutableClock.atStart();
        LocalCooldownStore store = LocalCooldownStore.withClock(
                () -> Duration.between(MutableClock.START, clock.instant()).toNanos());
        store.coolDown("chat", Duration.ofMinutes(1));
        this.inner.thenRespond("hello");
        RetryClient client = RetryClient.of(this.inner, Retrier.builder(THREE_ATTEMPTS)
            .name("chat")
            .cooldown(store, null)
            .sleeper((delay, context) -> {
                this.seen.add("waited " + delay);
                clock.advance(delay);
            })
            .observer(this.observer)
            .build());

        client.invoke(REQUEST, CallContext.background());

        assertThat(this.seen).containsExactly("waited PT1M", "started chat INVOKE #1 after 0", "ended #1 success, last");
    }

    @Test
    void isNotAskedWhenThereIsNone() {
        this.inner.thenRespond("hello");
        RetryClient client = RetryClient.builder(this.inner, THREE_ATTEMPTS).build();

        client.invoke(REQUEST, CallContext.background());

        assertThat(this.seen).isEmpty();
    }
}
