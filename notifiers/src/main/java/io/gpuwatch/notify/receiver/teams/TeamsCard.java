package io.gpuwatch.notify.receiver.teams;

import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.render.Digest;
import io.gpuwatch.notify.render.Limit;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Workflows message for a digest: one Adaptive Card 1.5 attachment with a heading TextBlock (colour
 * {@code Attention} while firing, {@code Good} once resolved) and a TextBlock per entry, cut by whole entries so
 * the encoded body stays under Teams' ~28 KB message limit.
 */
final class TeamsCard {
    /** A margin below the documented ~28 KB, which Teams measures on its own re-encoding of the card. */
    static final int MAX_BODY_BYTES = 27_000;
    static final Limit TITLE = Limit.chars(400);
    /** 1.5 is the first version with {@code TextBlock.style: heading}; Teams renders 1.5 cards. */
    static final String VERSION = "1.5";

    private TeamsCard() {
    }

    static Optional<Buffer> build(Digest digest, boolean firing) {
        return build(digest, firing, List.of());
    }

    /**
     * The message, ending with an "On call:" TextBlock that mentions each of {@code mentions} (UPNs or Entra
     * object ids with their people's names) when there are any, as Teams documents it: {@code <at>name</at>} in
     * the text and a {@code msteams.entities} mention naming the id, which notifies that person.
     */
    static Optional<Buffer> build(Digest digest, boolean firing, List<OnCall.Named> mentions) {
        String title = digest.title(TITLE);
        return digest.fit(kept -> card(title.isEmpty() ? "gpuwatch alerts" : title, firing, kept, mentions),
                body -> body.length() <= MAX_BODY_BYTES);
    }

    private static Buffer card(String title, boolean firing, List<String> entries, List<OnCall.Named> mentions) {
        JsonArray body = new JsonArray().add(new JsonObject()
                .put("type", "TextBlock").put("text", title).put("weight", "Bolder").put("size", "Medium")
                .put("wrap", true).put("style", "heading").put("color", firing ? "Attention" : "Good"));
        for (String entry : entries) {
            if (!entry.isBlank()) {
                body.add(new JsonObject().put("type", "TextBlock").put("text", entry).put("wrap", true));
            }
        }
        if (mentions.isEmpty()) {
            return message(body);
        }
        JsonArray entities = new JsonArray();
        List<String> ats = new ArrayList<>();
        for (OnCall.Named m : mentions) {
            // the entity's text must be the <at> tag exactly as in the card, so the name is kept to plain text
            String at = "<at>" + m.name().replaceAll("[<>\\\\*_`\\[\\]#~\\p{Cntrl}]", " ").strip() + "</at>";
            ats.add(at);
            entities.add(new JsonObject().put("type", "mention").put("text", at)
                    .put("mentioned", new JsonObject().put("id", m.address()).put("name", m.name())));
        }
        body.add(new JsonObject().put("type", "TextBlock").put("text", "On call: " + String.join(" ", ats))
                .put("wrap", true));
        return message(body, entities);
    }

    /** The Workflows message around one full-width Adaptive Card 1.5 with these elements; reports use it too. */
    static Buffer message(JsonArray body) {
        return message(body, new JsonArray());
    }

    private static Buffer message(JsonArray body, JsonArray mentions) {
        JsonObject msteams = new JsonObject().put("width", "full");
        if (!mentions.isEmpty()) {
            msteams.put("entities", mentions);
        }
        JsonObject content = new JsonObject()
                .put("$schema", "http://adaptivecards.io/schemas/adaptive-card.json")
                .put("type", "AdaptiveCard")
                .put("version", VERSION)
                .put("body", body)
                .put("msteams", msteams);
        return new JsonObject()
                .put("type", "message")
                .put("attachments", new JsonArray().add(new JsonObject()
                        .put("contentType", "application/vnd.microsoft.card.adaptive")
                        .putNull("contentUrl")
                        .put("content", content)))
                .toBuffer();
    }
}
