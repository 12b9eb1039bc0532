package dev.inference.retry.starter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.file.Path;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MarkdownPageTests {

    private static final Path PAGE = Path.of("page.md");

    @Nested
    class Anchors {

        @ParameterizedTest(name = "{0} -> #{1}")
        @CsvSource(delimiter = '|', textBlock = """
                Spring AI                                                  | spring-ai
                Retry budget, shared cool-downs, shutdown and observation  | retry-budget-shared-cool-downs-shutdown-and-observation
                Counting without a locked instruction (issue 9, second pass) | counting-without-a-locked-instruction-issue-9-second-pass
                The `inference.retry.clients.<bean>` entries               | the-inferenceretryclientsbean-entries
                [Spring AI](https://spring.io) models                      | spring-ai-models
                **Bold** and snake_case                                    | bold-and-snake_case
                Café — 2.0                                                 | café--20
                """)
        void areMadeFromTheHeadingAsGitHubMakesThem(String heading, String anchor) {
            assertThat(MarkdownPage.anchor(heading)).isEqualTo(anchor);
        }

        @Test
        void aRepeatedHeadingGetsTheNumberOfItsRepeat() {
            MarkdownPage page = MarkdownPage.of(PAGE, "# Usage\n## Usage\n### Usage #\n");

            assertThat(page.anchors()).containsExactly("usage", "usage-1", "usage-2");
        }

        @Test
        void includeHtmlAnchorsButNoHeadingOfACodeBlock() {
            MarkdownPage page = MarkdownPage.of(PAGE, "# Title\n<a name=\"kept\"></a>\n```sh\n# a comment\n```\n");

            assertThat(page.anchors()).containsExactly("title", "kept");
        }
    }

    @Nested
    class Links {

        @Test
        void areTheInlineLinksImagesAndDefinitionsOutsideCode() {
            MarkdownPage page = MarkdownPage.of(PAGE, """
                    See [the docs](docs/a.md#part) and ![a chart](img/chart.png "Chart").
                    Not `[code](no.md)`.
                    ```md
                    [fenced](no.md)
                    ```
                    [ref]: docs/b.md
                    """);

            assertThat(page.links()).extracting(MarkdownPage.Link::line, MarkdownPage.Link::target)
                .containsExactly(tuple(1, "docs/a.md#part"), tuple(1, "img/chart.png"), tuple(6, "docs/b.md"));
        }
    }

    @Test
    void yamlBlocksAreTheFencedBlocksMarkedYaml() {
        MarkdownPage page = MarkdownPage.of(PAGE, """
                ```yaml
                a:
                  b: 1
                ```
                ```sh
                c: 2
                ```
                """);

        assertThat(page.yamlBlocks()).containsExactly(new MarkdownPage.YamlBlock(1, "a:\n  b: 1\n"));
    }
}
