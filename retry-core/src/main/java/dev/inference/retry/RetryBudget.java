package dev.inference.retry;

import java.math.BigDecimal;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A token bucket that caps retries when a provider keeps failing, shared by every call of one
 * client: gRPC's retry throttling, in fixed point (thousandths of a token).
 *
 * <p>The bucket holds at most {@code maxTokens} and starts full.
 * <ul>
 * <li>An attempt that fails retryably takes one token: {@code tokens = max(0, tokens − 1)}.</li>
 * <li>A retry is allowed only while {@code tokens > maxTokens / 2}, after that token was taken.</li>
 * <li>An attempt that succeeds returns {@code tokenRatio}: {@code tokens = min(maxTokens, tokens +
 * tokenRatio)}.</li>
 * <li>A permanent failure leaves the bucket alone.</li>
 * </ul>
 * So in an outage a client makes at most about {@code maxTokens / 2} retries in a row, and in steady
 * operation the retries stay below {@code tokenRatio} per success. A call whose retry is refused ends
 * with a {@link RetryBudgetExhaustedException}.
 *
 * <p>Thread-safe and lock-free. A success while the bucket is full costs one volatile read.
 */
public final class RetryBudget {

    /** The largest bucket accepted. */
    public static final int MAX_TOKENS_LIMIT = 1000;

    /** Fixed point: thousandths of a token. */
    private static final int SCALE = 1000;

    private final int maxTokens;

    private final int tokenRatioThousandths;

    /** The bucket's capacity in thousandths. */
    private final int capacity;

    /** The bucket, in thousandths of a token. */
    private final AtomicInteger tokens;

    private RetryBudget(int maxTokens, int tokenRatioThousandths) {
        this.maxTokens = maxTokens;
        this.tokenRatioThousandths = tokenRatioThousandths;
        this.capacity = maxTokens * SCALE;
        this.tokens = new AtomicInteger(this.capacity);
    }

    /**
     * Creates a full bucket.
     *
     * @param maxTokens the bucket's size, 1 to {@value #MAX_TOKENS_LIMIT}
     * @param tokenRatio the tokens each success returns: more than 0, at most 1, with at most three
     *     decimals
     * @return the budget
     * @throws NullPointerException if {@code tokenRatio} is {@code null}
     * @throws ConfigException naming {@code maxTokens} or {@code tokenRatio}, its value and the rule it
     *     breaks
     */
    public static RetryBudget of(int maxTokens, BigDecimal tokenRatio) {
        Objects.requireNonNull(tokenRatio, "tokenRatio must not be null");
        if (maxTokens < 1 || maxTokens > MAX_TOKENS_LIMIT) {
            throw new ConfigException("maxTokens", maxTokens, "must be an integer from 1 to " + MAX_TOKENS_LIMIT);
        }
        if (tokenRatio.signum() <= 0 || tokenRatio.compareTo(BigDecimal.ONE) > 0) {
            throw new ConfigException("tokenRatio", tokenRatio.toPlainString(),
                    "must be more than 0 and at most 1");
        }
        if (tokenRatio.stripTrailingZeros().scale() > 3) {
            throw new ConfigException("tokenRatio", tokenRatio.toPlainString(), "must have at most 3 decimals");
        }
        return new RetryBudget(maxTokens, tokenRatio.movePointRight(3).intValueExact());
    }

    /**
     * Returns the bucket's size.
     *
     * @return the most tokens it holds
     */
    public int maxTokens() {
        return this.maxTokens;
    }

    /**
     * Returns what each successful attempt gives back.
     *
     * @return the token ratio, with three decimals at most
     */
    public BigDecimal tokenRatio() {
        return BigDecimal.valueOf(this.tokenRatioThousandths, 3).stripTrailingZeros();
    }

    /**
     * Returns the tokens in the bucket now.
     *
     * @return the tokens, between 0 and {@link #maxTokens()}, with three decimals at most
     */
    public BigDecimal tokens() {
        return BigDecimal.valueOf(this.tokens.get(), 3).stripTrailingZeros();
    }

    /**
     * Tells whether a retry would be allowed now: whether the bucket holds more than half its size.
     *
     * @return {@code true} while {@code tokens > maxTokens / 2}
     */
    public boolean allowsRetries() {
        return allows(this.tokens.get());
    }

    /** Returns one success's tokens to the bucket. */
    void succeeded() {
        int current = this.tokens.get();
        // Full is the steady state: a read, no write, on the success path of a healthy provider.
        while (current < this.capacity) {
            int next = Math.min(this.capacity, current + this.tokenRatioThousandths);
            if (this.tokens.compareAndSet(current, next)) {
                return;
            }
            current = this.tokens.get();
        }
    }

    /**
     * Takes a retryable failure's token from the bucket.
     *
     * @return whether a retry is allowed afterwards
     */
    boolean failedRetryably() {
        return allows(this.tokens.updateAndGet((current) -> Math.max(0, current - SCALE)));
    }

    private boolean allows(int thousandths) {
        // tokens > maxTokens / 2, doubled to stay in integers for odd sizes.
        return 2 * thousandths > this.capacity;
    }

    @Override
    public String toString() {
        return "RetryBudget[tokens=" + tokens().toPlainString() + "/" + this.maxTokens + ", tokenRatio="
                + tokenRatio().toPlainString() + "]";
    }
}
