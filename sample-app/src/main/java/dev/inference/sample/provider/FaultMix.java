package dev.inference.sample.provider;

/**
 * The fractions of requests the {@link FlakyProvider} fails on purpose, by kind; the rest succeed.
 *
 * @param rateLimited the fraction answered {@link Outcome#RATE_LIMITED 429}
 * @param unavailable the fraction answered {@link Outcome#UNAVAILABLE 503}
 * @param serverError the fraction answered {@link Outcome#SERVER_ERROR 500}
 * @param dropped the fraction whose connection is {@link Outcome#DROP dropped}
 * @param cut the fraction whose response is {@link Outcome#CUT cut}
 * @param slow the fraction answered {@link Outcome#SLOW late}
 * @param keepAlive the fraction whose stream sends only {@link Outcome#KEEP_ALIVE keep-alives} first
 * @param stalledMidStream the fraction whose stream {@link Outcome#STALL_MID_STREAM stalls} after its
 *     first chunk
 */
public record FaultMix(double rateLimited, double unavailable, double serverError, double dropped, double cut,
        double slow, double keepAlive, double stalledMidStream) {

    /**
     * Checks the fractions.
     *
     * @throws IllegalArgumentException if a fraction is not between 0 and 1, or they add up to
     *     more than 1
     */
    public FaultMix {
        requireFraction("rate-limited", rateLimited);
        requireFraction("unavailable", unavailable);
        requireFraction("server-error", serverError);
        requireFraction("dropped", dropped);
        requireFraction("cut", cut);
        requireFraction("slow", slow);
        requireFraction("keep-alive", keepAlive);
        requireFraction("stalled-mid-stream", stalledMidStream);
        double total = rateLimited + unavailable + serverError + dropped + cut + slow + keepAlive + stalledMidStream;
        if (total > 1.0) {
            throw new IllegalArgumentException("The fault fractions must add up to at most 1, but rate-limited "
                    + rateLimited + " + unavailable " + unavailable + " + server-error " + serverError + " + dropped "
                    + dropped + " + cut " + cut + slowFractions(slow, keepAlive, stalledMidStream) + " = " + total
                    + "; lower some of them");
        }
    }

    /**
     * Creates a mix with no slow answers.
     *
     * @param rateLimited the fraction answered 429
     * @param unavailable the fraction answered 503
     * @param serverError the fraction answered 500
     * @param dropped the fraction whose connection is dropped
     * @param cut the fraction whose response is cut
     * @throws IllegalArgumentException as the canonical constructor does
     */
    public FaultMix(double rateLimited, double unavailable, double serverError, double dropped, double cut) {
        this(rateLimited, unavailable, serverError, dropped, cut, 0, 0, 0);
    }

    /**
     * Returns the mix in which every request succeeds, for scripted tests.
     *
     * @return the mix with every fraction 0
     */
    public static FaultMix none() {
        return new FaultMix(0, 0, 0, 0, 0);
    }

    /**
     * Picks the outcome for a uniformly distributed draw: the fractions, in the order of the
     * components, take consecutive slices of {@code [0, 1)}, and the rest is success.
     *
     * @param draw a number in {@code [0, 1)}
     * @return the outcome
     */
    public Outcome pick(double draw) {
        double bound = this.rateLimited;
        if (draw < bound) {
            return Outcome.RATE_LIMITED;
        }
        bound += this.unavailable;
        if (draw < bound) {
            return Outcome.UNAVAILABLE;
        }
        bound += this.serverError;
        if (draw < bound) {
            return Outcome.SERVER_ERROR;
        }
        bound += this.dropped;
        if (draw < bound) {
            return Outcome.DROP;
        }
        bound += this.cut;
        if (draw < bound) {
            return Outcome.CUT;
        }
        bound += this.slow;
        if (draw < bound) {
            return Outcome.SLOW;
        }
        bound += this.keepAlive;
        if (draw < bound) {
            return Outcome.KEEP_ALIVE;
        }
        bound += this.stalledMidStream;
        return (draw < bound) ? Outcome.STALL_MID_STREAM : Outcome.SUCCESS;
    }

    /** The slow answers' part of the sum, named only when some are set. */
    private static String slowFractions(double slow, double keepAlive, double stalledMidStream) {
        if (slow + keepAlive + stalledMidStream == 0) {
            return "";
        }
        return " + slow " + slow + " + keep-alive " + keepAlive + " + stalled-mid-stream " + stalledMidStream;
    }

    private static void requireFraction(String name, double value) {
        if (!(value >= 0.0 && value <= 1.0)) {
            throw new IllegalArgumentException("The " + name + " fault fraction must be between 0 and 1, was " + value);
        }
    }
}
