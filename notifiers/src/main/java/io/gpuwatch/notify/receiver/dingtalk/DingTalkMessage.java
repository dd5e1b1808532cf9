package io.gpuwatch.notify.receiver.dingtalk;

import io.gpuwatch.notify.render.Digest;
import io.gpuwatch.notify.render.Limit;
import io.gpuwatch.notify.render.Truncation;
import io.vertx.core.buffer.Buffer;
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

    private DingTalkMessage() {
    }

    static Optional<Buffer> build(Digest digest) {
        String title = digest.title(TITLE);
        String heading = title.isEmpty() ? "gpuwatch alerts" : title;
        return Truncation.fit(digest.entries(), kept -> message(heading, kept),
                body -> body.length() <= MAX_BODY_BYTES);
    }

    private static Buffer message(String title, List<String> entries) {
        String text = "### " + title + "\n\n" + String.join("\n", entries.stream().filter(e -> !e.isBlank()).toList());
        return new JsonObject()
                .put("msgtype", "markdown")
                .put("markdown", new JsonObject().put("title", title).put("text", text.strip()))
                .toBuffer();
    }
}
