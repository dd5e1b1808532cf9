package io.gpuwatch.notify.render;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TruncationTest {
    private static final List<String> TEN = IntStream.rangeClosed(1, 10).mapToObj(i -> "alert number " + i).toList();

    @Test
    void keepsEverythingThatFits() {
        assertEquals(String.join("\n", TEN), Truncation.join(TEN, "\n", Limit.chars(1000)));
    }

    @Test
    void dropsWholeEntriesBehindACountOfTheRest() {
        String out = Truncation.join(TEN, "\n", Limit.chars(52));
        assertEquals("alert number 1\nalert number 2\nalert number 3\n+7 more", out);
        assertTrue(out.length() <= 52);
    }

    @Test
    void cutsTheFirstEntryWhenNothingWholeFits() {
        List<String> huge = List.of("x".repeat(100), "second");
        String out = Truncation.join(huge, "\n", Limit.chars(30));
        assertEquals(30, out.length());
        assertTrue(out.endsWith("…\n+1 more"), out);
    }

    @Test
    void countsUtf8BytesWithoutSplittingCharacters() {
        // 3 bytes per character: a byte limit must stop at a character boundary.
        String cjk = "显卡温度过高".repeat(10);
        Limit limit = Limit.utf8Bytes(31);
        String out = limit.cut(cjk);
        assertTrue(out.getBytes(StandardCharsets.UTF_8).length <= 31, out);
        assertEquals("显卡温度过高显卡温…", out);
        List<String> entries = List.of(cjk, cjk, cjk);
        String joined = Truncation.join(entries, "\n\n", Limit.utf8Bytes(400));
        assertTrue(joined.getBytes(StandardCharsets.UTF_8).length <= 400);
        assertTrue(joined.endsWith("\n\n+1 more"), joined);
    }

    @Test
    void fitFindsTheLargestRenderingThatPasses() {
        Optional<String> out = Truncation.fit(TEN, entries -> "[" + String.join(",", entries) + "]",
                s -> s.length() <= 70);
        assertEquals(Optional.of("[alert number 1,alert number 2,alert number 3,alert number 4,+6 more]"), out);
        assertEquals(Optional.empty(), Truncation.fit(TEN, entries -> "[" + String.join(",", entries) + "]",
                s -> s.length() < 5));
        assertEquals(List.of("+10 more"), Truncation.keep(TEN, 0));
    }

    @Test
    void lineFlattensBreaksAndCuts() {
        assertEquals("GPU hot on node-01", Limit.chars(150).line("GPU hot\non   node-01\n"));
        assertEquals("abcd…", Limit.chars(5).line("abcdefgh"));
    }

    @Test
    void aCutFallsBetweenSourceCharactersSoNoEntityIsSplit() {
        Text ampersands = Text.value("&".repeat(100));
        // 5 + 5 + 1 fits in 12; a cut of the escaped string would have ended in "&amp;&a…".
        assertEquals("&amp;&amp;…", ampersands.cut(Limit.chars(12), Markup.SLACK_MRKDWN));
        Text mixed = new Text.Builder().literal("*").value("<@U1>").literal("*").build();
        assertEquals("*&lt;@U1&gt;*", mixed.in(Markup.SLACK_MRKDWN));
        assertEquals("*&lt;@…", mixed.cut(Limit.chars(7), Markup.SLACK_MRKDWN));
        assertEquals("*&lt;…", mixed.cut(Limit.chars(6), Markup.SLACK_MRKDWN));
        assertEquals("*\\<@…", mixed.cut(Limit.chars(5), Markup.COMMONMARK));
    }

    @Test
    void oneLongEntryKeepsItsTextCutWithAnEllipsisAndTheRestAreCounted() {
        List<Text> entries = List.of(Text.value("显卡" + "温度过高".repeat(1_000)), Text.value("second"));
        Optional<String> out = Truncation.fit(entries, Markup.PLAIN, kept -> String.join("\n", kept),
                s -> s.getBytes(StandardCharsets.UTF_8).length <= 300);
        String text = out.orElseThrow();
        assertTrue(text.startsWith("显卡温度过高温度过高"), text);
        assertTrue(text.endsWith("…\n+1 more"), text);
        assertTrue(text.getBytes(StandardCharsets.UTF_8).length > 250, "as much text as fits is kept: " + text);
        assertEquals(Optional.of("显卡" + "温度过高".repeat(1_000).substring(0, 10) + "…"),
                Truncation.fit(entries.subList(0, 1), Markup.PLAIN, kept -> String.join("\n", kept),
                        s -> s.length() <= 13));
    }

    @Test
    void everyMarkupNeutralisesMentionsLinksAndTags() {
        String hostile = "<at id=all></at> <@zhangsan> <!channel> [click](https://evil.example) *b* _i_ [~admin]";
        assertEquals("&lt;at id=all&gt;&lt;/at&gt; &lt;@zhangsan&gt; &lt;!channel&gt; [click](https://evil.example)"
                + " *b* _i_ [~admin]", Markup.SLACK_MRKDWN.escape(hostile));
        assertEquals("\\<at id=all\\>\\</at\\> \\<@zhangsan\\> \\<!channel\\> \\[click\\](https://evil.example)"
                + " \\*b\\* \\_i\\_ \\[\\~admin\\]", Markup.COMMONMARK.escape(hostile));
        assertEquals("&#60;at id=all&#62;&#60;/at&#62; &#60;@zhangsan&#62; &#60;!channel&#62; "
                + "&#91;click&#93;(https://evil.example) &#42;b&#42; &#95;i&#95; &#91;&#126;admin&#93;",
                Markup.LARK_MD.escape(hostile));
        assertEquals("＜at id=all＞＜/at＞ ＜@zhangsan＞ ＜!channel＞ ［click］(https://evil.example) ＊b＊ ＿i＿ ［～admin］",
                Markup.LOOKALIKE.escape(hostile));
        assertEquals("<at id=all></at> <@zhangsan> <\\!channel> \\[click\\](https://evil.example) \\*b\\* \\_i\\_"
                + " \\[\\~admin\\]", Markup.JIRA_WIKI.escape(hostile));
        assertEquals(hostile, Markup.PLAIN.escape(hostile));
        assertEquals("😀", Markup.COMMONMARK.escape("😀"));
    }
}
