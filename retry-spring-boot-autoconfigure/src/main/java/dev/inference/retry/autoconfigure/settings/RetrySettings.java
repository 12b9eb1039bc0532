package dev.inference.retry.autoconfigure.settings;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The settings of every retried bean at one moment: an immutable snapshot, keyed by bean name in the
 * order the beans were resolved. A change makes a new snapshot ({@link #with}); the holder swaps it in
 * with one volatile write, so that a reader sees every bean's settings of one snapshot or of the next,
 * never a mix. Two snapshots are equal when every bean's {@link BeanRetrySettings} is.
 *
 * <p>It holds settings only, never state: the retry budgets' tokens and the retriers live beside it in
 * {@link dev.inference.retry.autoconfigure.RetriedClients}.
 *
 * @param beans each retried bean's settings, keyed by bean name
 */
public record RetrySettings(Map<String, BeanRetrySettings> beans) {

    private static final RetrySettings EMPTY = new RetrySettings(Map.of());

    /**
     * Copies the settings, keeping their order.
     *
     * @param beans each retried bean's settings, keyed by bean name
     *
     * @throws NullPointerException if {@code beans} is {@code null}
     */
    public RetrySettings {
        beans = Collections.unmodifiableMap(new LinkedHashMap<>(beans));
    }

    /**
     * Returns the snapshot of no bean.
     *
     * @return the empty snapshot
     */
    public static RetrySettings empty() {
        return EMPTY;
    }

    /**
     * Returns the settings of one bean.
     *
     * @param beanName the bean's name
     * @return its settings, or empty when the bean is not in this snapshot
     */
    public Optional<BeanRetrySettings> of(String beanName) {
        return Optional.ofNullable(this.beans.get(beanName));
    }

    /**
     * Returns a snapshot with one bean's settings added or replaced.
     *
     * @param settings the bean's settings
     * @return a new snapshot; this one is unchanged
     */
    public RetrySettings with(BeanRetrySettings settings) {
        Map<String, BeanRetrySettings> beans = new LinkedHashMap<>(this.beans);
        beans.put(settings.beanName(), settings);
        return new RetrySettings(beans);
    }

    /**
     * Returns a snapshot without one bean's settings.
     *
     * @param beanName the bean's name
     * @return a new snapshot, or this one when it has no such bean
     */
    public RetrySettings without(String beanName) {
        if (!this.beans.containsKey(beanName)) {
            return this;
        }
        Map<String, BeanRetrySettings> beans = new LinkedHashMap<>(this.beans);
        beans.remove(beanName);
        return new RetrySettings(beans);
    }
}
