package dev.inference.retry.fallback;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One fall-over of a {@link FallbackChain}: the call left {@code member} for {@code reason}.
 *
 * @param chain the chain's name
 * @param member the member's name
 * @param reason why the call left it
 * @param failure the member's failure, as it threw it; {@code null} for {@link FallbackReason#SKIPPED}
 */
public record FallbackEvent(String chain, String member, FallbackReason reason, @Nullable Throwable failure) {

    /**
     * Checks the names and the reason.
     *
     * @param chain the chain's name
     * @param member the member's name
     * @param reason why the call left it
     * @param failure the member's failure, or {@code null} for {@link FallbackReason#SKIPPED}
     * @throws NullPointerException if {@code chain}, {@code member} or {@code reason} is {@code null}
     */
    public FallbackEvent {
        Objects.requireNonNull(chain, "chain must not be null");
        Objects.requireNonNull(member, "member must not be null");
        Objects.requireNonNull(reason, "reason must not be null");
    }
}
