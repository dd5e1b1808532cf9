package io.gpuwatch.notify.receiver.wecom;

import io.gpuwatch.notify.render.Digest;
import io.gpuwatch.notify.render.Limit;
import io.gpuwatch.notify.render.Text;
import io.gpuwatch.notify.render.Truncation;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * The robot message for a digest: {@code markdown} whose content (bold title, then the entries) stays within
 * WeCom's 4,096 UTF-8 bytes, cut by whole entries; above it WeCom answers errcode 40058.
 */
final class WeComMessage {
    static final Limit CONTENT = Limit.utf8Bytes(4_096);
    static final Limit TITLE = Limit.utf8Bytes(512);

    private WeComMessage() {
    }

    /**
     * The message, ending with an Acknowledge link to {@code ackLink} when it is not null and a line that mentions
     * each of {@code mentions} (userids) when there are any.
     */
    static JsonObject build(Digest digest, List<String> mentions, String ackLink) {
        String title = digest.title(TITLE);
        String head = "**" + (title.isEmpty() ? "gpuwatch alerts" : title) + "**";
        // the mention line is kept whole: the entries are cut to leave room for it
        String tail = (ackLink == null ? "" : "\n[Acknowledge](" + ackLink + ")") + (mentions.isEmpty() ? ""
                : "\nOn call: " + String.join(" ", mentions.stream().map(id -> "<@" + id + ">").toList()));
        List<Text> entries = digest.entries().stream().filter(e -> !e.isBlank()).toList();
        String content = (entries.isEmpty() ? head
                : head + "\n" + Truncation.join(entries, digest.markup(), "\n",
                        CONTENT.less(CONTENT.size(head + "\n" + tail)))) + tail;
        return new JsonObject()
                .put("msgtype", "markdown")
                .put("markdown", new JsonObject().put("content", content));
    }
}
