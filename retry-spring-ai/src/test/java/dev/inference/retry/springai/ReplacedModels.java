package dev.inference.retry.springai;

import static dev.inference.retry.springai.Await.assertHolds;
import static dev.inference.retry.springai.Await.awaitTrue;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * Checks what a rebuilt model shares with the model it replaced (the executors of Spring AI's
 * transports, say) against what the replaced model's SDK releases once that model is collected.
 */
public final class ReplacedModels {

    private ReplacedModels() {
    }

    /**
     * Collects the replaced model, then asserts that the shared executors keep running for half a second,
     * as long as the SDK's cleaners take to run after a collection.
     *
     * @param replaced the replaced model, which nothing else holds
     * @param shared the executors the rebuilt model still uses
     */
    public static void assertSharedExecutorsOutlive(WeakReference<?> replaced, List<ExecutorService> shared) {
        awaitTrue(() -> {
            System.gc();
            return replaced.get() == null;
        });
        assertHolds(() -> shared.stream().noneMatch(ExecutorService::isShutdown), Duration.ofMillis(500));
    }
}
