/**
 * Where the cool-downs that providers ask for are kept, so that every caller of a provider account
 * waits out a {@code Retry-After} that one of them received: the {@link
 * dev.inference.retry.cooldown.CooldownStore} contract, the in-memory store, and why a cool-down was set.
 *
 * <p>Plain Java, beneath the retry loop: {@code dev.inference.retry} uses these types, never the other
 * way round (an architecture test pins it). The Redis store lives in {@code retry-cooldown-redis}.
 */
@NullMarked
package dev.inference.retry.cooldown;

import org.jspecify.annotations.NullMarked;
