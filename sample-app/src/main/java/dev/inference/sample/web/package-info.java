/**
 * The sample's HTTP API: {@code /chat} and {@code /chat/stream} through its {@code InferenceClient},
 * {@code /ai/chat}, {@code /ai/chat/stream} and {@code /ai/embed} through Spring AI, with failures as
 * RFC 9457 problem details.
 */
@NullMarked
package dev.inference.sample.web;

import org.jspecify.annotations.NullMarked;
