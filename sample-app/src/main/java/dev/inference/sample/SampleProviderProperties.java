package dev.inference.sample;

import dev.inference.sample.provider.FaultMix;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The embedded flaky provider, started when {@code sample.inference.base-url} is not set.
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
     * Fractions of requests to fail on purpose, by kind.
     */
    private final Faults faults = new Faults();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public int getPort() {
        return this.port;
    }

    public void setPort(int port) {
        this.port = port;
    }

    public long getSeed() {
        return this.seed;
    }

    public void setSeed(long seed) {
        this.seed = seed;
    }

    public Duration getRetryAfter() {
        return this.retryAfter;
    }

    public void setRetryAfter(Duration retryAfter) {
        this.retryAfter = retryAfter;
    }

    public Faults getFaults() {
        return this.faults;
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

        public double getRateLimited() {
            return this.rateLimited;
        }

        public void setRateLimited(double rateLimited) {
            this.rateLimited = rateLimited;
        }

        public double getUnavailable() {
            return this.unavailable;
        }

        public void setUnavailable(double unavailable) {
            this.unavailable = unavailable;
        }

        public double getServerError() {
            return this.serverError;
        }

        public void setServerError(double serverError) {
            this.serverError = serverError;
        }

        public double getDropped() {
            return this.dropped;
        }

        public void setDropped(double dropped) {
            this.dropped = dropped;
        }

        public double getCut() {
            return this.cut;
        }

        public void setCut(double cut) {
            this.cut = cut;
        }

        FaultMix toFaultMix() {
            return new FaultMix(this.rateLimited, this.unavailable, this.serverError, this.dropped, this.cut);
        }
    }
}
