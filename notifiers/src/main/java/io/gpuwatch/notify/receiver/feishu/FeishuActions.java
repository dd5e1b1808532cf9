package io.gpuwatch.notify.receiver.feishu;

import io.gpuwatch.notify.chataction.ChatAction;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * The Acknowledge, Resolve and Silence 1h buttons of a Feishu card whose clicks a Feishu app posts back to the
 * gateway ({@code card.action.trigger}): each button's {@code value} is {@code {"gpuwatch": action id, "f":
 * fingerprints}}, which the callback carries back. Also the card the gateway answers a click with, which Feishu
 * shows in place of the clicked one.
 */
public final class FeishuActions {
    /** The key of a button value that names the gpuwatch action. */
    public static final String ACTION_KEY = "gpuwatch";
    /** The key of a button value that holds the fingerprints, comma-separated. */
    public static final String FINGERPRINTS_KEY = "f";
    /** As many fingerprints as a button carries; a bigger flood is handled in the console or over the API. */
    static final int MAX_FINGERPRINTS = 50;

    private FeishuActions() {
    }

    /** The card's {@code action} element with one callback button per {@link ChatAction}, for {@code fingerprints}. */
    public static JsonObject buttons(List<String> fingerprints) {
        String f = String.join(",", fingerprints.subList(0, Math.min(fingerprints.size(), MAX_FINGERPRINTS)));
        JsonArray actions = new JsonArray();
        for (ChatAction a : ChatAction.values()) {
            actions.add(new JsonObject().put("tag", "button")
                    .put("type", a == ChatAction.ACKNOWLEDGE ? "primary" : "default")
                    .put("text", new JsonObject().put("tag", "plain_text").put("content", a.label()))
                    .put("value", new JsonObject().put(ACTION_KEY, a.id()).put(FINGERPRINTS_KEY, f)));
        }
        return new JsonObject().put("tag", "action").put("actions", actions);
    }

    /**
     * A card (the {@code card} object, without {@code msg_type}) with {@code title} in a header coloured
     * {@code template}, {@code larkMd} (already escaped) as its text, and the buttons for {@code fingerprints}
     * while there are any.
     */
    public static JsonObject card(String title, String template, String larkMd, List<String> fingerprints) {
        JsonArray elements = new JsonArray().add(new JsonObject().put("tag", "div")
                .put("text", new JsonObject().put("tag", "lark_md").put("content", larkMd)));
        if (!fingerprints.isEmpty()) {
            elements.add(buttons(fingerprints));
        }
        return new JsonObject()
                .put("header", new JsonObject()
                        .put("title", new JsonObject().put("tag", "plain_text").put("content", title))
                        .put("template", template))
                .put("elements", elements);
    }
}
