/**
 * The typed failures of an inference call, which tell a transient failure from a permanent one, and
 * helpers that transports use to build them.
 */
@NullMarked
package dev.inference.failure;

import org.jspecify.annotations.NullMarked;
