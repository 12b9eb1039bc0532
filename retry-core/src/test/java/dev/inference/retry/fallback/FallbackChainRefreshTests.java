package dev.inference.retry.fallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.inference.failure.NetworkException;
import dev.inference.retry.ConfigException;
import dev.inference.retry.ExhaustedException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A chain's skip rule and its members' model names replaced while calls run
 * ({@link FallbackChain#refreshSkip}, {@link FallbackChain#refreshNoSkip}, {@link FallbackChain#useModels}).
 */
class FallbackChainRefreshTests {

    private static final RuntimeException EXHAUSTED = new ExhaustedException(3, new NetworkException("reset", null));

    private final FallbackChain chain = FallbackChain.builder("chat").member("openai").member("backup")
        .skip(3, Duration.ofMinutes(10))
        .build();

    /** Makes one call in which the first member falls over and the second answers; returns the members called. */
    private String call() {
        StringBuilder called = new StringBuilder();
        FallbackChain.Call call = this.chain.start(FallbackReason::of);
        for (int member = call.next(); member >= 0; member = call.next()) {
            called.append(member);
            if (member == 0) {
                assertThat(call.fellOver(EXHAUSTED)).isTrue();
                continue;
            }
            call.answered();
            break;
        }
        return called.toString();
    }

    @Test
    void aLowerSkipAfterCountsTheFallOversInARowSoFar() {
        assertThat(call()).isEqualTo("01");

        this.chain.refreshSkip(2, Duration.ofMinutes(10));

        assertThat(call()).isEqualTo("01");
        assertThat(call()).as("openai skipped after 2 in a row").isEqualTo("1");
    }

    @Test
    void removingTheRuleEndsTheSkipsInForce() {
        this.chain.refreshSkip(1, Duration.ofMinutes(10));
        assertThat(call()).isEqualTo("01");
        assertThat(call()).isEqualTo("1");

        this.chain.refreshNoSkip();

        assertThat(call()).isEqualTo("01");
        assertThat(call()).isEqualTo("01");
    }

    @Test
    void anInvalidRuleIsRefusedAsTheBuilderRefusesIt() {
        assertThatExceptionOfType(ConfigException.class).isThrownBy(() -> this.chain.refreshSkip(0, Duration.ofMinutes(1)))
            .withMessageContaining("must be at least 1");
    }

    @Test
    void newModelNamesReplaceTheOnesInForceWhole() {
        this.chain.useModels(Map.of("openai", "gpt-a", "backup", "claude-b"));

        this.chain.useModels(Map.of("backup", "claude-c"));

        assertThat(this.chain.modelOf(0)).isEmpty();
        assertThat(this.chain.modelOf(1)).contains("claude-c");
    }

    @Test
    void aModelNameForNoMemberIsRefusedAndNothingReplaced() {
        this.chain.useModels(Map.of("backup", "claude-b"));

        assertThatExceptionOfType(ConfigException.class)
            .isThrownBy(() -> this.chain.useModels(Map.of("backup", "claude-c", "gemini", "flash")))
            .withMessageContaining("models.gemini")
            .withMessageContaining("must name a member of the chain, one of [openai, backup]");
        assertThat(this.chain.modelOf(1)).contains("claude-b");
    }
}
