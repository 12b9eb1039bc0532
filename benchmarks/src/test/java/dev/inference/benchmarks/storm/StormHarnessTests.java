package dev.inference.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class StormHarnessTests {

    @Nested
    class Verdict {

        @Test
        void meetsTheGoalWithAsManyAnswersAndFourFifthsFewer429s() {
            Map<Contender, StormTally.Summary> summaries = new LinkedHashMap<>();
            summaries.put(Contender.STARTER_REDIS, summary(900, 20, 60_000));
            summaries.put(Contender.SPRING_AI, summary(900, 100, 5_000));
            summaries.put(Contender.NONE, summary(600, 300, 10));

            assertThat(StormHarness.verdict(summaries)).isEqualTo("""
                    - answered: 900 against 900 for the best peer (Spring AI 2.0.1 alone (SDK retries)): met
                    - 429s: 20 against 100 for the peer with the fewest (Spring AI 2.0.1 alone (SDK retries)), 80% fewer: met
                    - longest call: 60.0 s against the cap of 5 minutes: met
                    """);
        }

        @Test
        void saysPlainlyWhatIsNotMet() {
            Map<Contender, StormTally.Summary> summaries = new LinkedHashMap<>();
            summaries.put(Contender.STARTER_REDIS, summary(800, 30, 301_000));
            summaries.put(Contender.RESILIENCE4J, summary(850, 100, 5_000));

            assertThat(StormHarness.verdict(summaries)).contains("answered: 800 against 850", "NOT met")
                .contains("70% fewer: NOT met")
                .contains("longest call: 301.0 s against the cap of 5 minutes: NOT met");
        }

        @Test
        void isNotJudgedWithoutAPeer() {
            assertThat(StormHarness.verdict(Map.of(Contender.STARTER_REDIS, summary(1, 0, 1))))
                .startsWith("Goal not judged");
        }

        private static StormTally.Summary summary(int answered, long refused, long longestMillis) {
            return new StormTally.Summary(900, 1000, refused, answered, Map.of(), 1, 2, longestMillis * 1_000_000L);
        }
    }

    @Nested
    class Table {

        @Test
        void listsEachFailureReasonWithItsCount() {
            Map<Contender, StormTally.Summary> summaries = Map.of(Contender.NONE, new StormTally.Summary(900, 900, 300,
                    600, Map.of("RateLimitException", 300), 2_000_000, 9_000_000, 12_000_000_000L));

            assertThat(StormHarness.table(summaries)).endsWith(
                    "| no retry | 900 | 600 | 300: 300 RateLimitException | 900 | 300 | 600 | 2 ms | 9 ms | 12.0 s |\n");
        }
    }

    @Nested
    class Options {

        @Test
        void defaultsToTheStormOfTheDocs() {
            StormHarness.Options options = StormHarness.Options.parse(new String[0]);

            assertThat(options.seconds()).isEqualTo(60);
            assertThat(options.capacity()).isEqualTo(20);
            assertThat(options.window()).isEqualTo(Duration.ofSeconds(2));
            assertThat(options.load()).isEqualTo(1.5);
            assertThat(options.instances()).isEqualTo(3);
            assertThat(options.contenders()).containsExactly(Contender.values());
        }

        @Test
        void readsTheContendersInTheOrderGiven() {
            assertThat(StormHarness.Options.parse(new String[] { "--contenders", "NONE, STARTER", "--drain", "500ms" })
                .contenders()).isEqualTo(List.of(Contender.NONE, Contender.STARTER));
        }

        @Test
        void refusesAnUnknownOption() {
            assertThatIllegalArgumentException()
                .isThrownBy(() -> StormHarness.Options.parse(new String[] { "--sconds", "5" }))
                .withMessageStartingWith("Unknown option --sconds");
        }
    }
}
