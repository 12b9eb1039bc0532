package dev.inference.retry.fallback;

/**
 * Hears what a {@link FallbackChain} does, for meters and logs: each fall-over from a member, and the
 * end of each call with the member that answered. Both methods are no-ops by default, and take one
 * event each, so that the interface can grow without overloads. Called on the calling thread; a
 * listener that throws a {@link RuntimeException} is logged and does not change the call.
 */
public interface FallbackListener {

    /**
     * A call left a member for the next one, or passed over a skipped member.
     *
     * @param event the chain, the member, the reason and the member's failure
     */
    default void fellOver(FallbackEvent event) {
    }

    /**
     * A call of the chain was answered, or fell over from every member. Not told of a call that ended
     * with a failure that does not fall over (a bad request, a cancellation).
     *
     * @param event the chain and the member that answered, if any
     */
    default void callEnded(FallbackCallEvent event) {
    }
}
