/**
 * Non-blocking retry of Project Reactor publishers with the decisions and listener events of the
 * blocking {@link dev.inference.retry.RetryClient}.
 *
 * <p>{@link dev.inference.retry.reactor.ReactorRetry} is the entry point. It runs each call on the
 * core's non-blocking loop, {@link dev.inference.retry.AsyncRetry}, whose waits end on a Reactor
 * {@link reactor.core.scheduler.Scheduler}, never blocking a thread, so that it keeps no retry rules
 * and no loop of its own.
 */
@NullMarked
package dev.inference.retry.reactor;

import org.jspecify.annotations.NullMarked;
