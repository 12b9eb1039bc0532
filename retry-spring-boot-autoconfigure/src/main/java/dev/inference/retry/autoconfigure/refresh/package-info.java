/**
 * Runtime refresh of {@code inference.retry.*} with Spring Cloud Context (SPEC §13): an
 * {@code EnvironmentChangeEvent} naming a retry key re-binds, re-validates and, when valid, applies
 * the whole configuration through {@link dev.inference.retry.autoconfigure.refresh.RetryRefresh}. The only
 * package of the starter that imports Spring Cloud; without Spring Cloud Context nothing of it is
 * loaded.
 */
@NullMarked
package dev.inference.retry.autoconfigure.refresh;

import org.jspecify.annotations.NullMarked;
