/**
 * How the retry passes time: the seams through which it sleeps and schedules, and the timers it
 * gives them by default. Never depends on the retry loop itself.
 */
@NullMarked
package dev.inference.retry.time;

import org.jspecify.annotations.NullMarked;
