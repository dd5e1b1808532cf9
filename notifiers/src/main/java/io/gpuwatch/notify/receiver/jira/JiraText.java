package io.gpuwatch.notify.receiver.jira;

import io.gpuwatch.notify.render.Limit;
import io.gpuwatch.notify.render.Template;
import io.gpuwatch.notify.render.Truncation;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * Rich text the way each REST version wants it: v2 takes a plain string, v3 an Atlassian Document. In the
 * document, blank lines separate paragraphs and single line breaks become hard breaks; empty text nodes are
 * never written, since Jira rejects them. Text is first fitted to Jira's 32,767-character field limit.
 */
final class JiraText {
    static final int MAX_CHARS = 32_767;

    private JiraText() {
    }

    /** The value for a description or comment body under this API version. */
    static Object body(String text, int apiVersion) {
        String fitted = fit(text, MAX_CHARS);
        return apiVersion == 2 ? fitted : document(fitted);
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

    // Whole lines while they fit, then a "+N more" line for the rest.
    private static String fit(String text, int max) {
        return Truncation.join(List.of(text.split("\n", -1)), "\n", Limit.chars(max));
    }
}
