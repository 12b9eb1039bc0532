/**
 * The sample application: a web app whose inference calls go through the retry starter, to an
 * embedded flaky provider or to a real OpenAI-compatible endpoint.
 */
@NullMarked
package dev.inference.sample;

import org.jspecify.annotations.NullMarked;
