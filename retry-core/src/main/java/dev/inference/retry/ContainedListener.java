package dev.inference.retry;

import dev.inference.retry.cooldown.CooldownSetEvent;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Calls a client's listeners in order, so that a listener that throws a {@link RuntimeException}
 * neither breaks the call nor keeps the listeners after it from being told. Errors propagate.
 */
final class ContainedListener implements RetryListener {

    private static final System.Logger logger = System.getLogger(RetryClient.class.getName());

    private final RetryListener[] listeners;

    /** The only listener when there is exactly one, told without a loop; else {@code null}. */
    private final @Nullable RetryListener only;

    ContainedListener(List<RetryListener> listeners) {
        this.listeners = List.copyOf(listeners).toArray(new RetryListener[0]);
        this.only = (this.listeners.length == 1) ? this.listeners[0] : null;
    }

    @Override
    public void attemptFinished(AttemptEvent event) {
        RetryListener only = this.only;
        if (only != null) {
            attemptFinished(only, event);
            return;
        }
        for (RetryListener listener : this.listeners) {
            attemptFinished(listener, event);
        }
    }

    @Override
    public void retryScheduled(AttemptEvent failed, Duration delay) {
        for (RetryListener listener : this.listeners) {
            try {
                listener.retryScheduled(failed, delay);
            }
            catch (RuntimeException ex) {
                contain(listener, "retryScheduled", failed, ex);
            }
        }
    }

    @Override
    public void exhausted(AttemptEvent last, ExhaustedException exception) {
        for (RetryListener listener : this.listeners) {
            try {
                listener.exhausted(last, exception);
            }
            catch (RuntimeException ex) {
                contain(listener, "exhausted", last, ex);
            }
        }
    }

    @Override
    public void attemptDelayed(CooldownEvent event) {
        for (RetryListener listener : this.listeners) {
            try {
                listener.attemptDelayed(event);
            }
            catch (RuntimeException ex) {
                contain(listener, "attemptDelayed", event.attempt(), event.client(), ex);
            }
        }
    }

    @Override
    public void cooldownSet(CooldownSetEvent event) {
        for (RetryListener listener : this.listeners) {
            try {
                listener.cooldownSet(event);
            }
            catch (RuntimeException ex) {
                logger.log(Level.WARNING, () -> "RetryListener " + listener + " threw from cooldownSet for key '"
                        + event.key() + "' of client '" + event.client() + "'; the call goes on", ex);
            }
        }
    }

    @Override
    public void streamStalled(StreamStalledEvent event) {
        for (RetryListener listener : this.listeners) {
            try {
                listener.streamStalled(event);
            }
            catch (RuntimeException ex) {
                logger.log(Level.WARNING, () -> "RetryListener " + listener + " threw from streamStalled for client '"
                        + event.client() + "'; the stream ends all the same", ex);
            }
        }
    }

    /** Tells one listener that an attempt finished, containing and logging its runtime exception. */
    static void attemptFinished(RetryListener listener, AttemptEvent event) {
        try {
            listener.attemptFinished(event);
        }
        catch (RuntimeException ex) {
            contain(listener, "attemptFinished", event, ex);
        }
    }

    private static void contain(RetryListener listener, String method, AttemptEvent event, RuntimeException ex) {
        contain(listener, method, event.attempt(), event.client(), ex);
    }

    private static void contain(RetryListener listener, String method, int attempt, String client,
            RuntimeException ex) {
        logger.log(Level.WARNING, () -> "RetryListener " + listener + " threw from " + method + " for attempt "
                + attempt + " of client '" + client + "'; the call goes on", ex);
    }

    @Override
    public String toString() {
        return Arrays.toString(this.listeners);
    }
}
