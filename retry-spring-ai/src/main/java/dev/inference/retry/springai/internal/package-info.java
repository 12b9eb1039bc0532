/**
 * Everything of Spring AI and of the provider SDKs that this module reaches beyond their public API, in
 * one place: the private fields a rebuild reads and the private constructors it calls, one
 * {@code *Internals} class per provider declaring each beside the version it was read from and why no
 * public way exists ({@link dev.inference.retry.springai.internal.OpenAiInternals} and its siblings); the
 * JDK proxies of the SDKs' interfaces ({@link dev.inference.retry.springai.internal.ForwardingProxy}); and
 * the inspection of a model class's fields for the proxy. A member not found fails startup with a
 * {@link dev.inference.retry.springai.ModelNotRetriableException}. {@code SpringAiArchitectureTests}
 * keeps reflection out of the other packages. Internal: no compatibility promise.
 */
@NullMarked
package dev.inference.retry.springai.internal;

import org.jspecify.annotations.NullMarked;
