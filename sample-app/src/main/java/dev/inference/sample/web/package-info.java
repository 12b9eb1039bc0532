/**
 * The sample's HTTP API: {@code /chat} and {@code /chat/stream}, with failures as RFC 9457 problem
 * details.
 */
@NullMarked
package dev.inference.sample.web;

import org.jspecify.annotations.NullMarked;
