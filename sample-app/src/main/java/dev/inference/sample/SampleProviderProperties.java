package dev.inference.sample;

import dev.inference.sample.provider.FaultMix;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The embedded provider, started when {@code sample.inference.base-url} is not set: flaky, or
 * rate-limited when {@code sample.provider.rate-limit.requests} is set.
 */
@ConfigurationProperties("sample.provider")
public class SampleProviderProperties {

    /**
     * Whether to start the embedded provider when no base URL is set.
     */
    private boolean enabled = true;

    /**
     * Port of 127.0.0.1 the embedded provider listens on, so that other instances can share it
     * through their base URL; 0 for any free port.
     */
    private int port;

    /**
     * Seed of the generator that draws each request's outcome, so that a run can be repeated.
     */
    private long seed = 6451;

    /**
     * Delay a 429 asks for, sent as retry-after-ms and as Retry-After in whole seconds.
     */
    private Duration retryAfter = Duration.ofSeconds(1);

    /**
     * How long a slow answer (faults slow, keep-alive and stalled-mid-stream) keeps the client
     * waiting.
     */
    private Duration slowDelay = Duration.ofSeconds(60);

    /**
     * Whether the OpenAI side of the embedded provider answers 503 to every chat completion, so that
     * the fallback chain "chat" answers /ai/chat from the Anthropic side.
     */
    private boolean openaiDown;

    /**
     * Fractions of requests to fail on purpose, by kind.
     */
    private final Faults faults = new Faults();

    /**
     * The rate-limited mode, in place of the faults: a limit of requests per window that every
     * caller shares.
     */
    private final RateLimit rateLimit = new RateLimit();

    /**
     * Returns whether the embedded provider is started when no base URL is set.
     *
     * @return {@code true} unless switched off
     */
    public boolean isEnabled() {
        return this.enabled;
    }

    /**
     * Sets whether the embedded provider is started when no base URL is set.
     *
     * @param enabled {@code false} to start none
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * Returns the port the embedded provider listens on.
     *
     * @return the port, or 0 for any free port
     */
    public int getPort() {
        return this.port;
    }

    /**
     * Sets the port the embedded provider listens on; checked when it starts.
     *
     * @param port 0 to 65535, 0 for any free port
     */
    public void setPort(int port) {
        this.port = port;
    }

    /**
     * Returns the seed of the outcomes drawn.
     *
     * @return the seed
     */
    public long getSeed() {
        return this.seed;
    }

    /**
     * Sets the seed of the outcomes drawn.
     *
     * @param seed the seed
     */
    public void setSeed(long seed) {
        this.seed = seed;
    }

    /**
     * Returns the delay a 429 asks for.
     *
     * @return the delay
     */
    public Duration getRetryAfter() {
        return this.retryAfter;
    }

    /**
     * Sets the delay a 429 asks for; at least a millisecond, checked when the provider starts.
     *
     * @param retryAfter the delay
     */
    public void setRetryAfter(Duration retryAfter) {
        this.retryAfter = retryAfter;
    }

    /**
     * Returns how long a slow answer keeps the client waiting.
     *
     * @return the delay
     */
    public Duration getSlowDelay() {
        return this.slowDelay;
    }

    /**
     * Sets how long a slow answer keeps the client waiting; at least a millisecond, checked when the
     * provider starts.
     *
     * @param slowDelay the delay
     */
    public void setSlowDelay(Duration slowDelay) {
        this.slowDelay = slowDelay;
    }

    /**
     * Returns whether the OpenAI side answers 503 to every chat completion.
     *
     * @return {@code true} when switched off
     */
    public boolean isOpenaiDown() {
        return this.openaiDown;
    }

    /**
     * Sets whether the OpenAI side answers 503 to every chat completion.
     *
     * @param openaiDown {@code true} to switch it off
     */
    public void setOpenaiDown(boolean openaiDown) {
        this.openaiDown = openaiDown;
    }

    /**
     * Returns the fractions of requests failed on purpose.
     *
     * @return the fault fractions, bound in place
     */
    public Faults getFaults() {
        return this.faults;
    }

    /**
     * Returns the rate-limited mode's settings.
     *
     * @return the settings, bound in place
     */
    public RateLimit getRateLimit() {
        return this.rateLimit;
    }

    /**
     * The rate-limited mode: the provider fails nothing on purpose, admits a fixed number of requests
     * per window from every caller together, sends OpenAI's rate-limit headers with every answer and
     * answers 429 with a Retry-After past the limit.
     */
    public static class RateLimit {

        /**
         * Requests admitted per window; unset for the flaky mode.
         */
        private @Nullable Integer requests;

        /**
         * Length of each window.
         */
        private Duration window = Duration.ofSeconds(1);

        /**
         * Returns the requests admitted per window.
         *
         * @return the limit, or {@code null} for the flaky mode
         */
        public @Nullable Integer getRequests() {
            return this.requests;
        }

        /**
         * Sets the requests admitted per window; at least 1, checked when the provider starts.
         *
         * @param requests the limit, or {@code null} for the flaky mode
         */
        public void setRequests(@Nullable Integer requests) {
            this.requests = requests;
        }

        /**
         * Returns the length of each window.
         *
         * @return the window
         */
        public Duration getWindow() {
            return this.window;
        }

        /**
         * Sets the length of each window; at least a millisecond, checked when the provider starts.
         *
         * @param window the window
         */
        public void setWindow(Duration window) {
            this.window = window;
        }

        /** The limit, or {@code null} for the flaky mode. */
        dev.inference.sample.provider.@Nullable RateLimit toRateLimit() {
            return (this.requests != null) ? dev.inference.sample.provider.RateLimit.of(this.requests, this.window)
                    : null;
        }
    }

    /**
     * Fractions of requests the provider fails, each from 0 to 1 and together at most 1; the rest
     * succeed.
     */
    public static class Faults {

        /**
         * Fraction answered 429 with a Retry-After.
         */
        private double rateLimited = 0.15;

        /**
         * Fraction answered 503.
         */
        private double unavailable = 0.1;

        /**
         * Fraction answered 500.
         */
        private double serverError = 0.05;

        /**
         * Fraction whose connection is reset without an answer.
         */
        private double dropped = 0.05;

        /**
         * Fraction whose response is cut: a stream after two chunks, a unary body half-way.
         */
        private double cut = 0.05;

        /**
         * Fraction answered only after the slow delay: a hung provider.
         */
        private double slow;

        /**
         * Fraction of streams that send only SSE keep-alive comments for the slow delay before their
         * content (other requests: answered after it).
         */
        private double keepAlive;

        /**
         * Fraction of streams that fall silent for the slow delay after their first chunk (other
         * requests: answered after it).
         */
        private double stalledMidStream;

        /**
         * Returns the fraction answered after the slow delay.
         *
         * @return a fraction in [0, 1]
         */
        public double getSlow() {
            return this.slow;
        }

        /**
         * Sets the fraction answered after the slow delay.
         *
         * @param slow a fraction in [0, 1]
         */
        public void setSlow(double slow) {
            this.slow = slow;
        }

        /**
         * Returns the fraction of streams that send only keep-alives before their content.
         *
         * @return a fraction in [0, 1]
         */
        public double getKeepAlive() {
            return this.keepAlive;
        }

        /**
         * Sets the fraction of streams that send only keep-alives before their content.
         *
         * @param keepAlive a fraction in [0, 1]
         */
        public void setKeepAlive(double keepAlive) {
            this.keepAlive = keepAlive;
        }

        /**
         * Returns the fraction of streams that stall after their first chunk.
         *
         * @return a fraction in [0, 1]
         */
        public double getStalledMidStream() {
            return this.stalledMidStream;
        }

        /**
         * Sets the fraction of streams that stall after their first chunk.
         *
         * @param stalledMidStream a fraction in [0, 1]
         */
        public void setStalledMidStream(double stalledMidStream) {
            this.stalledMidStream = stalledMidStream;
        }

        /**
         * Returns the fraction answered 429.
         *
         * @return a fraction in [0, 1]
         */
        public double getRateLimited() {
            return this.rateLimited;
        }

        /**
         * Sets the fraction answered 429.
         *
         * @param rateLimited a fraction in [0, 1]
         */
        public void setRateLimited(double rateLimited) {
            this.rateLimited = rateLimited;
        }

        /**
         * Returns the fraction answered 503.
         *
         * @return a fraction in [0, 1]
         */
        public double getUnavailable() {
            return this.unavailable;
        }

        /**
         * Sets the fraction answered 503.
         *
         * @param unavailable a fraction in [0, 1]
         */
        public void setUnavailable(double unavailable) {
            this.unavailable = unavailable;
        }

        /**
         * Returns the fraction answered 500.
         *
         * @return a fraction in [0, 1]
         */
        public double getServerError() {
            return this.serverError;
        }

        /**
         * Sets the fraction answered 500.
         *
         * @param serverError a fraction in [0, 1]
         */
        public void setServerError(double serverError) {
            this.serverError = serverError;
        }

        /**
         * Returns the fraction whose connection is reset without an answer.
         *
         * @return a fraction in [0, 1]
         */
        public double getDropped() {
            return this.dropped;
        }

        /**
         * Sets the fraction whose connection is reset without an answer.
         *
         * @param dropped a fraction in [0, 1]
         */
        public void setDropped(double dropped) {
            this.dropped = dropped;
        }

        /**
         * Returns the fraction whose answer is cut part-way.
         *
         * @return a fraction in [0, 1]
         */
        public double getCut() {
            return this.cut;
        }

        /**
         * Sets the fraction whose answer is cut part-way.
         *
         * @param cut a fraction in [0, 1]
         */
        public void setCut(double cut) {
            this.cut = cut;
        }

        FaultMix toFaultMix() {
            return new FaultMix(this.rateLimited, this.unavailable, this.serverError, this.dropped, this.cut, this.slow,
                    this.keepAlive, this.stalledMidStream);
        }
    }
}
