package dev.inference.retry.autoconfigure;

import dev.inference.retry.RetryListener;

/**
 * A {@link RetryListener} bean that gives every wrapped client a listener of its own, so that what
 * it needs per client is resolved once, when the client is wrapped, rather than at every event. The
 * post-processor attaches {@link #forClient(String)} of the bean's name instead of the bean itself.
 * Free of Micrometer, so that the post-processor can test for it without Micrometer on the class path.
 */
interface PerClientRetryListener extends RetryListener {

    /**
     * Returns the listener to attach to the client named {@code client}.
     *
     * @param client the name of the client, which is the name of the bean it wraps
     * @return the client's listener
     */
    RetryListener forClient(String client);
}
