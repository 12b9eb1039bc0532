package dev.inference.retry.reactor;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A cold source that plays a script, one step per subscription, and counts its subscriptions. A
 * subscription beyond the script fails the test with an {@link AssertionError}.
 */
final class ScriptedSource {

    private final Queue<Supplier<Flux<String>>> steps = new ConcurrentLinkedQueue<>();

    private final AtomicInteger subscriptions = new AtomicInteger();

    static ScriptedSource script() {
        return new ScriptedSource();
    }

    /** Adds one attempt per failure, each failing at once with it. */
    ScriptedSource thenFail(Throwable... failures) {
        for (Throwable failure : failures) {
            this.steps.add(() -> Flux.error(failure));
        }
        return this;
    }

    /** Adds an attempt that emits the elements, then completes (at once, when there are none). */
    ScriptedSource thenEmit(String... elements) {
        this.steps.add(() -> Flux.fromArray(elements));
        return this;
    }

    /** Adds an attempt that emits the elements, then fails. */
    ScriptedSource thenEmitAndFail(List<String> elements, Throwable failure) {
        this.steps.add(() -> Flux.fromIterable(elements).concatWith(Flux.error(failure)));
        return this;
    }

    /** Adds an attempt that never signals anything, as a provider that never answers. */
    ScriptedSource thenHang() {
        this.steps.add(Flux::never);
        return this;
    }

    /** Returns the source as a stream: each subscription plays the next step. */
    Flux<String> flux() {
        return Flux.defer(this::next);
    }

    /** Returns the source as a single value: each subscription plays the next step's first element. */
    Mono<String> mono() {
        return Mono.defer(() -> next().next());
    }

    int subscriptions() {
        return this.subscriptions.get();
    }

    private Flux<String> next() {
        int subscription = this.subscriptions.incrementAndGet();
        Supplier<Flux<String>> step = this.steps.poll();
        if (step == null) {
            throw new AssertionError("Subscription " + subscription + " was not in the script");
        }
        return step.get();
    }
}
