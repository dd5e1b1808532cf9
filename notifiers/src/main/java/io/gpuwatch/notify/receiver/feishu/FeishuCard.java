package io.gpuwatch.notify.receiver.feishu;

import io.gpuwatch.notify.render.Digest;
import io.gpuwatch.notify.render.Limit;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Optional;

/**
 * The bot message for a digest: an {@code interactive} card with a red header while firing (green once
 * resolved) and one lark_md block of entries, cut by whole entries to keep the body under Feishu's 20 KB.
 */
final class FeishuCard {
    static final int MAX_BODY_BYTES = 20_000;
    /** Room left for the {@code "timestamp"} and {@code "sign"} fields that each attempt adds. */
    static final int SIGNATURE_BYTES = 100;
    static final Limit TITLE = Limit.chars(200);

    private FeishuCard() {
    }

    /**
     * The card, ending with a block that mentions each of {@code mentions} (open_ids) when there are any, and an
     * Acknowledge button opening {@code ackLink} when it is not null.
     */
    static Optional<JsonObject> build(Digest digest, boolean firing, List<String> mentions, String ackLink) {
        return build(digest, firing, mentions, ackLink, List.of());
    }

    /**
     * As {@link #build(Digest, boolean, List, String)}, with Acknowledge, Resolve and Silence 1h buttons that call
     * back ({@link FeishuActions}) for the alerts {@code callbacks} (fingerprints) when there are any: only a card
     * an app's bot posts may carry them.
     */
    static Optional<JsonObject> build(Digest digest, boolean firing, List<String> mentions, String ackLink,
                                      List<String> callbacks) {
        String title = digest.plainTitle(TITLE);
        return digest.fit(kept -> card(title.isEmpty() ? "gpuwatch alerts" : title, firing, kept, mentions,
                        ackLink, callbacks),
                card -> card.toBuffer().length() <= MAX_BODY_BYTES - SIGNATURE_BYTES);
    }

    private static JsonObject card(String title, boolean firing, List<String> entries, List<String> mentions,
                                   String ackLink, List<String> callbacks) {
        JsonArray elements = new JsonArray();
        String text = String.join("\n", entries.stream().filter(e -> !e.isBlank()).toList());
        if (!text.isEmpty()) {
            elements.add(new JsonObject().put("tag", "div")
                    .put("text", new JsonObject().put("tag", "lark_md").put("content", text)));
        }
        if (!mentions.isEmpty()) {
            // lark_md's mention tag; a text message would write <at user_id="…"></at> instead
            elements.add(new JsonObject().put("tag", "div").put("text", new JsonObject().put("tag", "lark_md")
                    .put("content", "On call: " + String.join(" ", mentions.stream()
                            .map(id -> "<at id=" + id + "></at>").toList()))));
        }
        if (ackLink != null) {
            // a custom bot's button can only open a link; the link itself is signed (AckLink)
            elements.add(new JsonObject().put("tag", "action").put("actions", new JsonArray().add(new JsonObject()
                    .put("tag", "button").put("type", "primary").put("url", ackLink)
                    .put("text", new JsonObject().put("tag", "plain_text").put("content", "Acknowledge")))));
        }
        if (!callbacks.isEmpty()) {
            elements.add(FeishuActions.buttons(callbacks));
        }
        return new JsonObject()
                .put("msg_type", "interactive")
                .put("card", new JsonObject()
                        .put("header", new JsonObject()
                                .put("title", new JsonObject().put("tag", "plain_text").put("content", title))
                                .put("template", firing ? "red" : "green"))
                        .put("elements", elements));
    }
}
