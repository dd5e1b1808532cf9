package io.gpuwatch.notify.receiver.jira;

import io.gpuwatch.notify.render.Limit;
import io.gpuwatch.notify.render.Markup;
import io.gpuwatch.notify.render.Text;
import io.gpuwatch.notify.render.Truncation;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * Rich text the way each REST version wants it: v2 takes wiki markup, with slot values escaped so a label cannot
 * mention ({@code [~user]}), link or open a macro; v3 an Atlassian Document, whose text nodes are plain. In the
 * document, blank lines separate paragraphs and single line breaks become hard breaks; empty text nodes are
 * never written, since Jira rejects them. Jira's 32,767-character field limit applies to what is stored: the
 * wiki string for v2 and the serialised document JSON for v3, so each is fitted by whole lines, then by cutting
 * the first line, with a {@code +N more} line for the rest.
 */
final class JiraText {
    static final int MAX_CHARS = 32_767;

    private JiraText() {
    }

    /** The value for a description or comment body under this API version. */
    static Object body(Text text, int apiVersion) {
        List<Text> lines = text.lines();
        if (apiVersion == 2) {
            return Truncation.join(lines, Markup.JIRA_WIKI, "\n", Limit.chars(MAX_CHARS));
        }
        return Truncation.fit(lines, Markup.PLAIN, kept -> document(String.join("\n", kept)),
                        doc -> doc.encode().length() <= MAX_CHARS)
                .orElseGet(() -> document(Truncation.more(lines.size())));
    }

    static JsonObject document(String text) {
        JsonArray paragraphs = new JsonArray();
        for (String block : text.split("\n\\s*\n")) {
            JsonArray content = new JsonArray();
            String[] lines = block.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                if (i > 0) {
                    content.add(new JsonObject().put("type", "hardBreak"));
                }
                if (!lines[i].isEmpty()) {
                    content.add(new JsonObject().put("type", "text").put("text", lines[i]));
                }
            }
            if (!content.isEmpty()) {
                paragraphs.add(new JsonObject().put("type", "paragraph").put("content", content));
            }
        }
        return new JsonObject().put("type", "doc").put("version", 1).put("content", paragraphs);
    }
}
