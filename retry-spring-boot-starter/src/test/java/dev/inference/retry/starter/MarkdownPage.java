package dev.inference.retry.starter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Markdown page read as GitHub renders it, as far as the documentation tests need: the anchors of its
 * headings, its links, its YAML blocks and the dotted names in its text.
 *
 * <p>The trap is code: a fenced block or a code span holds no link and no heading, however much it looks
 * like one, while the names and YAML in code are exactly what a reader copies.
 */
final class MarkdownPage {

    /** A link as written, with the number of the line it is on. */
    record Link(int line, String target) {
    }

    /** A fenced block of YAML, with the number of its opening fence's line. */
    record YamlBlock(int line, String text) {
    }

    /** A dotted name found in the text, code included, with the number of the line it is on. */
    record Name(int line, String name) {
    }

    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})\\s*([\\w-]*).*$");

    private static final Pattern HEADING = Pattern.compile("^ {0,3}#{1,6}\\s+(.*?)(?:\\s+#+)?\\s*$");

    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(?!`).*?(?<!`)\\1(?!`)");

    private static final Pattern INLINE_LINK = Pattern
        .compile("\\[(?:[^\\[\\]]|\\[[^\\[\\]]*\\])*\\]\\(\\s*<?([^\\s()<>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");

    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*<?([^\\s>]+)>?.*$");

    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");

    /** What GitHub drops from a heading's text to make its anchor: all but letters, digits, marks, '_', '-' and spaces. */
    private static final Pattern NOT_IN_ANCHOR = Pattern.compile("[^\\p{L}\\p{M}\\p{Nd}_\\- ]");

    private final Path path;

    private final List<String> lines;

    private final boolean[] code;

    private final List<String> fenceInfo;

    private MarkdownPage(Path path, List<String> lines) {
        this.path = path;
        this.lines = lines;
        this.code = new boolean[lines.size()];
        this.fenceInfo = new ArrayList<>();
        String open = null;
        for (int i = 0; i < lines.size(); i++) {
            Matcher fence = FENCE.matcher(lines.get(i));
            boolean isFence = fence.matches();
            if (open == null && isFence) {
                open = fence.group(1);
                this.code[i] = true;
                this.fenceInfo.add(fence.group(2));
            }
            else if (open != null) {
                this.code[i] = true;
                this.fenceInfo.add(null);
                if (isFence && fence.group(1).startsWith(open) && fence.group(2).isEmpty()) {
                    open = null;
                }
            }
            else {
                this.fenceInfo.add(null);
            }
        }
    }

    static MarkdownPage read(Path path) throws IOException {
        return new MarkdownPage(path, Files.readAllLines(path));
    }

    static MarkdownPage of(Path path, String text) {
        return new MarkdownPage(path, text.lines().toList());
    }

    Path path() {
        return this.path;
    }

    /**
     * The anchors a link can name: each heading's as GitHub makes it (its text lower-cased, all but
     * letters, digits, '_', '-' and spaces dropped, spaces turned into '-'; a repeated one gets '-1', '-2'
     * and so on), and the names of HTML anchors.
     */
    Set<String> anchors() {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> repeats = new HashMap<>();
        for (int i = 0; i < this.lines.size(); i++) {
            if (this.code[i]) {
                continue;
            }
            Matcher heading = HEADING.matcher(this.lines.get(i));
            if (heading.matches()) {
                String anchor = anchor(heading.group(1));
                int seen = repeats.merge(anchor, 1, Integer::sum) - 1;
                anchors.add((seen == 0) ? anchor : anchor + "-" + seen);
            }
            Matcher html = HTML_ANCHOR.matcher(withoutCodeSpans(this.lines.get(i)));
            while (html.find()) {
                anchors.add(html.group(1));
            }
        }
        return anchors;
    }

    /** The anchor GitHub gives a heading whose Markdown text is {@code heading}. */
    static String anchor(String heading) {
        // A link in a heading shows its text only.
        String text = INLINE_LINK.matcher(heading).replaceAll((link) -> {
            String whole = link.group();
            return Matcher.quoteReplacement(whole.substring(1, whole.lastIndexOf("](")));
        });
        return NOT_IN_ANCHOR.matcher(text.toLowerCase(Locale.ROOT)).replaceAll("").replace(' ', '-');
    }

    /** The inline links, images and link reference definitions outside code. */
    List<Link> links() {
        List<Link> links = new ArrayList<>();
        for (int i = 0; i < this.lines.size(); i++) {
            if (this.code[i]) {
                continue;
            }
            String text = withoutCodeSpans(this.lines.get(i));
            Matcher inline = INLINE_LINK.matcher(text);
            while (inline.find()) {
                links.add(new Link(i + 1, inline.group(1)));
            }
            Matcher definition = REFERENCE_DEFINITION.matcher(text);
            if (definition.matches()) {
                links.add(new Link(i + 1, definition.group(1)));
            }
        }
        return links;
    }

    /** The fenced blocks whose info string says {@code yaml} or {@code yml}. */
    List<YamlBlock> yamlBlocks() {
        List<YamlBlock> blocks = new ArrayList<>();
        for (int i = 0; i < this.lines.size(); i++) {
            String info = this.fenceInfo.get(i);
            if ("yaml".equals(info) || "yml".equals(info)) {
                StringBuilder text = new StringBuilder();
                int line = i + 1;
                for (i++; i < this.lines.size() && this.code[i] && this.fenceInfo.get(i) == null
                        && !FENCE.matcher(this.lines.get(i)).matches(); i++) {
                    text.append(this.lines.get(i)).append('\n');
                }
                blocks.add(new YamlBlock(line, text.toString()));
            }
        }
        return blocks;
    }

    /** The matches of {@code name} anywhere in the text, code included. */
    List<Name> names(Pattern name) {
        List<Name> names = new ArrayList<>();
        for (int i = 0; i < this.lines.size(); i++) {
            Matcher matcher = name.matcher(this.lines.get(i));
            while (matcher.find()) {
                names.add(new Name(i + 1, matcher.group()));
            }
        }
        return names;
    }

    private static String withoutCodeSpans(String line) {
        return CODE_SPAN.matcher(line).replaceAll("");
    }
}
