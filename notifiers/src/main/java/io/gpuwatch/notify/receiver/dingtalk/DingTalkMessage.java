package io.gpuwatch.notify.receiver.dingtalk;

import io.gpuwatch.notify.render.Digest;
import io.gpuwatch.notify.render.Limit;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Optional;

/**
 * The robot message for a digest: {@code markdown} with the title as the preview and as a heading, then the
 * entries, cut by whole entries to keep the body within 20,000 bytes (DingTalk refuses much longer messages).
 */
final class DingTalkMessage {
    static final int MAX_BODY_BYTES = 20_000;
    static final Limit TITLE = Limit.chars(200);
    private static final String FALLBACK_TITLE = "gpuwatch alerts";

    private DingTalkMessage() {
    }

    /**
     * The message, mentioning each of {@code mentions} (mobile numbers): DingTalk rings a number listed in
     * {@code at.atMobiles} only when {@code @number} is in the text too, so both carry it; with an
     * {@code ackLink} (not null) the text ends with an Acknowledge link.
     */
    static Optional<Buffer> build(Digest digest, List<String> mentions, String ackLink) {
        String preview = digest.plainTitle(TITLE);
        String heading = digest.title(TITLE);
        return digest.fit(kept -> message(preview.isEmpty() ? FALLBACK_TITLE : preview,
                        heading.isEmpty() ? FALLBACK_TITLE : heading, kept, mentions, ackLink),
                body -> body.length() <= MAX_BODY_BYTES);
    }

    // The preview is shown as typed; the heading is markdown, so it carries the escaped title.
    private static Buffer message(String preview, String heading, List<String> entries, List<String> mentions,
                                  String ackLink) {
        String text = "### " + heading + "\n\n" + String.join("\n", entries.stream().filter(e -> !e.isBlank()).toList())
                + (ackLink == null ? "" : "\n\n[Acknowledge](" + ackLink + ")");
        JsonObject message = new JsonObject()
                .put("msgtype", "markdown");
        if (mentions.isEmpty()) {
            return message.put("markdown", new JsonObject().put("title", preview).put("text", text.strip()))
                    .toBuffer();
        }
        String at = String.join(" ", mentions.stream().map(m -> "@" + m).toList());
        return message.put("markdown", new JsonObject().put("title", preview)
                        .put("text", text.strip() + "\n\nOn call: " + at))
                .put("at", new JsonObject().put("atMobiles", new JsonArray(List.copyOf(mentions)))
                        .put("isAtAll", false))
                .toBuffer();
    }
}
