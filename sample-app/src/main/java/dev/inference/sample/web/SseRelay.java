package dev.inference.sample.web;

import java.util.function.Consumer;
import org.springframework.core.task.TaskExecutor;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Hands an established stream over to a task that relays it to the client as server-sent events, and
 * makes sure the stream is released however the response ends.
 */
final class SseRelay {

    private SseRelay() {
    }

    /**
     * Starts relaying on a new emitter, which has no timeout of its own: the stream's own deadline or
     * timeout ends a stalled one.
     *
     * @param executor where the relay runs
     * @param release releases the stream; run when the emitter completes, times out or fails, and at
     *     once when the relay cannot be started
     * @param relay sends the stream's events to the emitter and completes it
     * @return the emitter to answer the request with
     * @throws RuntimeException what the executor threw when it refused the relay, after the release
     */
    static SseEmitter start(TaskExecutor executor, Runnable release, Consumer<SseEmitter> relay) {
        SseEmitter emitter = new SseEmitter(0L);
        emitter.onCompletion(release);
        emitter.onTimeout(release);
        emitter.onError((ex) -> release.run());
        try {
            executor.execute(() -> relay.accept(emitter));
        }
        catch (RuntimeException ex) {
            release.run();
            throw ex;
        }
        return emitter;
    }
}
