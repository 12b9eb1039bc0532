/**
 * The retry storm: a provider with a fixed capacity on a loopback port, driven at 1.5 times that
 * capacity through the starter and through each retry layer a user would pick instead, each around a
 * real Spring AI {@code OpenAiChatModel}. See {@code docs/benchmarks.md} for the command and the results.
 */
@NullMarked
package dev.inference.benchmarks.storm;

import org.jspecify.annotations.NullMarked;
