package dev.inference.retry.autoconfigure.fallback;

import dev.inference.retry.autoconfigure.settings.FallbackChainProperties;
import dev.inference.retry.fallback.FallbackCallEvent;
import dev.inference.retry.fallback.FallbackEvent;
import dev.inference.retry.fallback.FallbackListener;
import dev.inference.retry.fallback.FallbackReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;

/**
 * Counts what fallback chains do: {@value #FALLBACKS}{@code {chain,member,reason}}, one per fall-over
 * from a member, and {@value #CALLS}{@code {chain,answered_by}}, one per call answered (or
 * {@code none} when every member fell over). Registers at zero, for each chain declared and each of
 * its members, the fall-overs for {@code exhausted} and {@code cooling}, so that dashboards and alerts
 * find those series from startup.
 */
public final class FallbackMeterListener implements FallbackListener {

    /** The fall-overs from members. */
    public static final String FALLBACKS = "inference.retry.fallbacks";

    /** The calls of chains, by the member that answered. */
    public static final String CALLS = "inference.retry.fallback.calls";

    private final MeterRegistry registry;

    /**
     * Creates the listener and registers the zero series of the chains declared.
     *
     * @param registry where to count
     * @param chains the chains declared, by name
     */
    public FallbackMeterListener(MeterRegistry registry, Map<String, FallbackChainProperties> chains) {
        this.registry = registry;
        chains.forEach((chain, settings) -> {
            for (String member : settings.getMembers()) {
                fallbacks(chain, member, FallbackReason.EXHAUSTED);
                fallbacks(chain, member, FallbackReason.COOLING);
            }
        });
    }

    @Override
    public void fellOver(FallbackEvent event) {
        fallbacks(event.chain(), event.member(), event.reason()).increment();
    }

    @Override
    public void callEnded(FallbackCallEvent event) {
        Counter.builder(CALLS)
            .description("Calls of a fallback chain, by the member that answered (none: every member fell over)")
            .tag("chain", event.chain())
            .tag("answered_by", event.answeredBy().orElse("none"))
            .register(this.registry)
            .increment();
    }

    private Counter fallbacks(String chain, String member, FallbackReason reason) {
        return Counter.builder(FALLBACKS)
            .description("Fall-overs of a fallback chain from a member, by reason")
            .tag("chain", chain)
            .tag("member", member)
            .tag("reason", reason.tag())
            .register(this.registry);
    }
}
