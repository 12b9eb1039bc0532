/**
 * Non-blocking retry of Project Reactor publishers with the decisions and listener events of the
 * blocking {@link dev.inference.retry.RetryClient}.
 *
 * <p>{@link dev.inference.retry.reactor.ReactorRetry} is the entry point. It waits on a Reactor
 * {@link reactor.core.scheduler.Scheduler}, never blocking a thread, and asks a
 * {@link dev.inference.retry.RetryExecution} of the same {@link dev.inference.retry.Retrier} for
 * every decision, so that it keeps no retry rules of its own.
 */
@NullMarked
package dev.inference.retry.reactor;

import org.jspecify.annotations.NullMarked;
