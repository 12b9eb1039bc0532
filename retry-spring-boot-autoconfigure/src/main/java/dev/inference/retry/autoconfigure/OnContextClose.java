package dev.inference.retry.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;

/**
 * Runs an action as soon as its own application context begins to close.
 *
 * <p>Why {@link ContextClosedEvent}: the context publishes it first thing when it closes, before it
 * stops any {@link org.springframework.context.Lifecycle} bean, such as the web server's graceful
 * shutdown (which waits for the requests in flight) or a Redis connection factory. A
 * {@code SmartLifecycle} in a high phase would run early enough as well, but it is also stopped by
 * {@code context.stop()}, which closes nothing, and the actions here cannot be taken back. A child
 * context closing (an actuator's, say) is not this application shutting down, and is ignored.
 */
final class OnContextClose implements ApplicationListener<ContextClosedEvent>, ApplicationContextAware {

    private final Runnable action;

    private @Nullable ApplicationContext context;

    OnContextClose(Runnable action) {
        this.action = action;
    }

    @Override
    public void setApplicationContext(ApplicationContext context) {
        this.context = context;
    }

    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        if (event.getApplicationContext() == this.context) {
            this.action.run();
        }
    }
}
