package dev.inference.retry.cooldown.redis;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ApplicationContextEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Starts the auto-configured {@link RedisCooldownStore} once its application context has refreshed,
 * and closes it, the one way it is closed, as soon as that context begins to close.
 *
 * <p>Why these two events: making the store's bean never waits for Redis nor starts a thread, so a
 * context whose refresh fails leaves nothing to close. {@link ContextClosedEvent} comes first thing
 * when the context closes, before any {@link org.springframework.context.Lifecycle} bean stops: the
 * Redis connection factory, stopped first, would close the store's connections under it, so that a
 * cool-down still being written was lost and reported as an outage. A {@code SmartLifecycle} would
 * also be stopped by {@code context.stop()}, which closes nothing, and a closed store cannot start
 * again. Events of another context (a child's, say) are ignored.
 */
final class RedisCooldownStoreLifecycle implements ApplicationListener<ApplicationContextEvent>, ApplicationContextAware {

    private final ObjectProvider<RedisCooldownStore> store;

    private @Nullable ApplicationContext context;

    RedisCooldownStoreLifecycle(ObjectProvider<RedisCooldownStore> store) {
        this.store = store;
    }

    @Override
    public void setApplicationContext(ApplicationContext context) {
        this.context = context;
    }

    @Override
    public void onApplicationEvent(ApplicationContextEvent event) {
        if (event.getApplicationContext() != this.context) {
            return;
        }
        if (event instanceof ContextRefreshedEvent) {
            this.store.ifAvailable(RedisCooldownStore::start);
        }
        else if (event instanceof ContextClosedEvent) {
            this.store.ifAvailable(RedisCooldownStore::close);
        }
    }
}
