/**
 * The Redis cool-down store: {@link dev.inference.retry.cooldown.redis.RedisCooldownStore} shares every
 * cool-down between the instances of an application through its Redis, and
 * {@link dev.inference.retry.cooldown.redis.RedisCooldownStoreAutoConfiguration} gives it to the
 * retrying clients when {@code inference.retry.cooldown.store=redis}.
 */
@NullMarked
package dev.inference.retry.cooldown.redis;

import org.jspecify.annotations.NullMarked;
