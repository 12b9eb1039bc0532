/**
 * The inference client abstraction: requests, responses, streams and the per-call context shared by
 * every attempt of a call.
 *
 * <p>Plain Java with no framework dependency, so that transports and decorators can be written and
 * tested without Spring.
 */
@NullMarked
package dev.inference.client;

import org.jspecify.annotations.NullMarked;
