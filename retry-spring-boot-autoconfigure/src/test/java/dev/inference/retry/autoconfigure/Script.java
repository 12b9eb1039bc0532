package dev.inference.retry.autoconfigure;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * What the {@link ScriptedClient}s of a test do: the failures to throw, then success, and the count
 * of attempts that reached them. Not an {@code InferenceClient}, so a test can share it as a bean
 * without it being wrapped.
 */
public final class Script {

    private final Queue<RuntimeException> next = new ConcurrentLinkedQueue<>();

    private volatile @Nullable RuntimeException always;

    private final AtomicInteger calls = new AtomicInteger();

    /** Makes the next attempts fail with these failures, one each, in order. */
    Script failNext(RuntimeException... failures) {
        this.next.addAll(List.of(failures));
        return this;
    }

    /** Makes every attempt after the scripted ones fail with this failure. */
    Script failAlways(RuntimeException failure) {
        this.always = failure;
        return this;
    }

    /** Returns how many attempts reached a client. */
    int calls() {
        return this.calls.get();
    }

    /** Counts an attempt and throws its scripted failure, if any. */
    void attempt() {
        this.calls.incrementAndGet();
        RuntimeException failure = this.next.poll();
        if (failure == null) {
            failure = this.always;
        }
        if (failure != null) {
            throw failure;
        }
    }
}
