package dev.inference.retry.autoconfigure.refresh;

import dev.inference.retry.autoconfigure.RefreshOutcome;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;

/**
 * Refreshes the retry configuration when an {@link EnvironmentChangeEvent} names one of its keys
 * ({@code /actuator/env}, {@code /actuator/refresh}, Spring Cloud Config all publish one), and counts
 * the outcome. Keys of other prefixes change nothing and count nothing.
 *
 * <p>Ordered first, before Spring Cloud re-binds the {@code @ConfigurationProperties} beans: its
 * re-binding of an invalid value can fail the event's publication after this listener has refused it.
 */
final class RetryRefreshListener implements ApplicationListener<EnvironmentChangeEvent>, Ordered {

    private final RetryRefresh refresh;

    private final ObjectProvider<RefreshMeters> meters;

    RetryRefreshListener(RetryRefresh refresh, ObjectProvider<RefreshMeters> meters) {
        this.refresh = refresh;
        this.meters = meters;
    }

    @Override
    public void onApplicationEvent(EnvironmentChangeEvent event) {
        this.refresh.refresh(event.getKeys()).ifPresent(this::count);
    }

    private void count(RefreshOutcome outcome) {
        RefreshMeters counters = this.meters.getIfAvailable();
        if (counters != null) {
            counters.count(outcome);
        }
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
