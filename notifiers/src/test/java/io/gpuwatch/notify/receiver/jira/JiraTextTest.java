package io.gpuwatch.notify.receiver.jira;

import io.gpuwatch.notify.render.Text;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Descriptions fit Jira's 32,767-character field limit as stored: the serialised ADF for v3, the wiki text for v2. */
class JiraTextTest {
    @Test
    void manyShortLinesFitTheSerialisedDocumentNotJustTheText() {
        // 9,000 lines of 3 characters are 36,000 characters of text, and far more as ADF (a node per line).
        Text text = Text.value("GPU\n".repeat(9_000).strip());
        JsonObject doc = (JsonObject) JiraText.body(text, 3);
        String sent = doc.encode();
        assertTrue(sent.length() <= JiraText.MAX_CHARS, "serialised ADF is " + sent.length() + " characters");
        assertTrue(sent.length() > 30_000, "as many lines as fit are kept: " + sent.length());
        assertTrue(sent.matches(".*\"text\":\"\\+\\d+ more\".*"), "the dropped lines are counted");
        assertEquals("doc", doc.getString("type"));
    }

    @Test
    void oneHugeLineIsCutWithAnEllipsisInsteadOfReplacedByACount() {
        Text text = Text.value("显卡温度过高\"\\".repeat(6_000));
        String sent = ((JsonObject) JiraText.body(text, 3)).encode();
        assertTrue(sent.length() <= JiraText.MAX_CHARS, "serialised ADF is " + sent.length() + " characters");
        assertTrue(sent.contains("显卡温度过高"), "the text is kept");
        assertTrue(sent.contains("…\"}"), "the cut is marked");
        assertFalse(sent.contains(" more\""), "nothing else to count");
    }

    @Test
    void v2EscapesWikiMarkupInSlotValuesOnlyAndFitsTheText() {
        Text text = new Text.Builder().literal("*Alert:* ").value("[~admin] {color:red}x{color} [link|http://evil]")
                .build();
        assertEquals("*Alert:* \\[\\~admin\\] \\{color:red\\}x\\{color\\} \\[link\\|http://evil\\]",
                JiraText.body(text, 2));
        String long2 = (String) JiraText.body(Text.value("{".repeat(40_000)), 2);
        assertTrue(long2.length() <= JiraText.MAX_CHARS);
        assertTrue(long2.endsWith("\\{…"), "a cut never leaves half an escape");
    }
}
