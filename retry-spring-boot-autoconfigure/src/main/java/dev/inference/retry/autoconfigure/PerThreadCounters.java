package dev.inference.retry.autoconfigure;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Registers counters that are incremented without a locked instruction: a {@link FunctionCounter}
 * (a counter to every registry and exporter) reading a {@link PerThreadCounter}.
 *
 * <p>A {@code FunctionCounter} reads the object it was first registered with: when a
 * {@link io.micrometer.core.instrument.config.MeterFilter} maps two counters to one id (one that drops
 * a tag, say), registering the second returns the first meter, which never reads the second object.
 * So this class keeps, per registry, the {@code PerThreadCounter} that each meter it registered reads,
 * by the meter's id after filtering, and hands that same one to every later registration that ends in
 * that meter: the counts of everything merged into one meter add up in it. The same map holds each
 * {@code PerThreadCounter} strongly for as long as its registry lives (the registry would hold it only
 * weakly), so that a meter keeps its counts when the listeners that counted into it are gone. A counter
 * registered again under the same name and tags is handed out without asking the registry again
 * (which would log that the {@code FunctionCounter} is registered already); a meter removed from the
 * registry is forgotten, and registered anew next time.
 *
 * <p>A {@link CompositeMeterRegistry} hands one object to all of its registries, and each of them may
 * map ids differently: where one merges two ids and another does not, no single object is right for
 * both. There it registers the registry's own {@link Counter} instead, exact under any filter, at the
 * cost of the registry's atomic add per increment.
 */
final class PerThreadCounters {

    /** What has been registered in each registry; guarded by itself. */
    private static final Map<MeterRegistry, Registrations> REGISTRATIONS = new WeakHashMap<>();

    private PerThreadCounters() {
    }

    /**
     * Registers the counter, at zero if it is new, and returns what to increment: what the meter that
     * the registry holds for it reads, shared with every other registration that ended in that meter.
     *
     * @param registry where to register the counter
     * @param name the counter's name
     * @param description its description
     * @param tags its tags
     * @return what counts into that meter, thread-safe
     */
    static Tally register(MeterRegistry registry, String name, String description, Tags tags) {
        if (registry instanceof CompositeMeterRegistry) {
            Counter counter = Counter.builder(name).description(description).tags(tags).register(registry);
            return counter::increment;
        }
        Registrations registrations;
        synchronized (REGISTRATIONS) {
            registrations = REGISTRATIONS.get(registry);
            if (registrations == null) {
                registrations = new Registrations();
                REGISTRATIONS.put(registry, registrations);
                registry.config().onMeterRemoved(registrations::removed);
            }
        }
        return registrations.register(registry, name, description, tags);
    }

    /** The name and tags of a counter as registered, before the registry's filters. */
    private record Requested(String name, Tags tags) {
    }

    /**
     * The counters registered in one registry. It refers to no registry, so that the map of all
     * registries, whose keys are weak, keeps none alive.
     */
    private static final class Registrations {

        /** By name and tags as registered. */
        private final Map<Requested, Registered> requested = new ConcurrentHashMap<>();

        /** By the meter's id, after the registry's filters: where registrations that they merge meet. */
        private final Map<Meter.Id, Registered> meters = new ConcurrentHashMap<>();

        synchronized Tally register(MeterRegistry registry, String name, String description, Tags tags) {
            Requested key = new Requested(name, tags);
            Registered known = this.requested.get(key);
            if (known != null) {
                return known.counter;
            }
            PerThreadCounter counter = new PerThreadCounter();
            FunctionCounter meter = FunctionCounter.builder(name, counter, PerThreadCounter::sum)
                .description(description)
                .tags(tags)
                .register(registry);
            Registered merged = this.meters.get(meter.getId());
            Registered registered = (merged != null && merged.meter.get() == meter) ? merged
                    : new Registered(meter, counter);
            this.meters.put(meter.getId(), registered);
            this.requested.put(key, registered);
            return registered.counter;
        }

        /** Called by the registry, holding its lock: takes no lock of this class's. */
        void removed(Meter meter) {
            this.requested.values().removeIf((registered) -> registered.meter.get() == meter);
            this.meters.values().removeIf((registered) -> registered.meter.get() == meter);
        }
    }

    /**
     * A meter and what it reads. The meter is held weakly, as the registry holds it strongly, so that
     * no meter that refers to its registry keeps that registry alive through this class.
     */
    private static final class Registered {

        final WeakReference<Meter> meter;

        final PerThreadCounter counter;

        Registered(Meter meter, PerThreadCounter counter) {
            this.meter = new WeakReference<>(meter);
            this.counter = counter;
        }
    }
}
