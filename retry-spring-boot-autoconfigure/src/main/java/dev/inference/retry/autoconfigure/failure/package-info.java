/**
 * How a wrong retry configuration stops startup: the failure analyzers that turn a
 * {@link dev.inference.retry.ConfigException} or an unknown {@code inference.retry.*} key into Spring Boot's
 * "APPLICATION FAILED TO START" report (registered in {@code META-INF/spring.factories}), and the
 * cool-down store that cannot be made. Beneath the auto-configuration: never depends on it.
 */
@NullMarked
package dev.inference.retry.autoconfigure.failure;

import org.jspecify.annotations.NullMarked;
