package io.gpuwatch.notify.render;

import java.util.Map;

/**
 * How a target's markup shows a value literally: each code point of a slot value (a label or annotation, which
 * tenants control) is escaped on its own, so text can be cut between code points and an escape is never split,
 * and a value can never open a mention, link, tag or style. Template literals are gpuwatch's own markup and are
 * not escaped.
 */
public enum Markup {
    /** Plain text fields that the target shows as typed (Slack plain_text, card header titles, ADF text nodes). */
    PLAIN(Map.of()),
    /** Slack mrkdwn: {@code & < >} as the entities Slack documents, so {@code <!channel>} or {@code <@U1>} is text. */
    SLACK_MRKDWN(Map.of('&', "&amp;", '<', "&lt;", '>', "&gt;")),
    /**
     * The Markdown of Adaptive Card TextBlocks: a backslash before every character that opens emphasis, a link,
     * an HTML tag or a heading; Teams honours CommonMark backslash escapes.
     */
    COMMONMARK(backslashed("\\`*_[]<>#~")),
    /**
     * Feishu/Lark {@code lark_md}: HTML character references for {@code < > &} (so {@code <at id=all></at>} or
     * {@code <font>} stay text) and for the emphasis, link and code characters.
     */
    LARK_MD(references("&<>*_~[]`\\")),
    /**
     * Markdown dialects with no documented escape (WeCom robot markdown, DingTalk robot markdown): the characters
     * that open a mention ({@code <@userid>}), a {@code <font>} tag, a link or emphasis are replaced by their
     * full-width look-alikes, which the reader still recognises but no parser acts on.
     */
    LOOKALIKE(Map.of('<', "＜", '>', "＞", '[', "［", ']', "］", '*', "＊", '_', "＿", '`', "｀", '~', "～",
            '#', "＃", '\\', "＼")),
    /** Jira wiki markup (REST v2): a backslash before every character that opens a macro, link, mention or style. */
    JIRA_WIKI(backslashed("\\{}[]*_-+^~?|!#")),
    /** HTML and SVG text and attribute values: character references for the characters that open markup. */
    HTML(references("&<>\"'"));

    private final Map<Character, String> escapes;

    Markup(Map<Character, String> escapes) {
        this.escapes = escapes;
    }

    /** The code point as this markup shows it literally. */
    public String escape(int codePoint) {
        String e = codePoint < Character.MIN_SUPPLEMENTARY_CODE_POINT ? escapes.get((char) codePoint) : null;
        return e != null ? e : new String(Character.toChars(codePoint));
    }

    /** The text as this markup shows it literally. */
    public String escape(String text) {
        StringBuilder sb = new StringBuilder(text.length());
        text.codePoints().forEach(cp -> sb.append(escape(cp)));
        return sb.toString();
    }

    private static Map<Character, String> backslashed(String chars) {
        Map<Character, String> m = new java.util.HashMap<>();
        chars.chars().forEach(c -> m.put((char) c, "\\" + (char) c));
        return Map.copyOf(m);
    }

    private static Map<Character, String> references(String chars) {
        Map<Character, String> m = new java.util.HashMap<>();
        chars.chars().forEach(c -> m.put((char) c, "&#" + c + ";"));
        return Map.copyOf(m);
    }
}
