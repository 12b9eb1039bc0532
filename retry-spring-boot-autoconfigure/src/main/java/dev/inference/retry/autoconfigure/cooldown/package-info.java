/**
 * Cool-down stores that the Spring layer can give the retrying clients: {@link
 * dev.inference.retry.autoconfigure.cooldown.RedisCooldownStore} shares every cool-down between the
 * instances of an application through its Redis.
 */
@NullMarked
package dev.inference.retry.autoconfigure.cooldown;

import org.jspecify.annotations.NullMarked;
