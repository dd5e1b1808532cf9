package io.gpuwatch.notify.receiver.slack;

import io.gpuwatch.notify.chataction.ChatAction;
import io.gpuwatch.notify.render.Digest;
import io.gpuwatch.notify.render.Limit;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * The Block Kit message for a digest: a plain-text header with the title, one mrkdwn section with the entries,
 * and the title again (escaped as mrkdwn) as the notification fallback {@code text}. Both blocks stay within
 * Slack's limits (header 150 characters, section 3,000), far below the ~13k total at which Slack starts refusing
 * blocks.
 */
public final class SlackMessage {
    static final Limit HEADER = Limit.chars(150);
    static final Limit SECTION = Limit.chars(3_000);
    private static final String FALLBACK_TITLE = "gpuwatch alerts";
    /** The start of each button's {@code action_id} ({@code gpuwatch_ack}, …), which the gateway's Slack route reads. */
    public static final String ACTION_PREFIX = "gpuwatch_";
    static final String ACTIONS_BLOCK = "gpuwatch_actions";
    /** Slack's limit on a button's value. */
    static final int VALUE_CHARS = 2_000;

    private SlackMessage() {
    }

    /**
     * The message, with a section mentioning each of {@code mentions} (Slack member ids) when there are any, and
     * Acknowledge, Resolve and Silence 1h buttons for the alerts {@code ackable} (fingerprints) when there are any.
     */
    static JsonObject build(Digest digest, List<String> mentions, List<String> ackable) {
        // plain_text shows characters as typed (an entity would appear literally), so the header is measured and
        // sent unescaped; the fallback text is mrkdwn, where a raw <!channel> would notify.
        String header = digest.plainTitle(HEADER);
        String title = header.isEmpty() ? FALLBACK_TITLE : digest.title(HEADER);
        JsonArray blocks = new JsonArray().add(new JsonObject().put("type", "header")
                .put("text", new JsonObject().put("type", "plain_text")
                        .put("text", header.isEmpty() ? FALLBACK_TITLE : header).put("emoji", true)));
        String body = digest.body("\n", SECTION);
        // An empty section is an invalid_blocks error, so a batch whose entries render empty gets the header only.
        if (!body.isBlank()) {
            blocks.add(new JsonObject().put("type", "section")
                    .put("text", new JsonObject().put("type", "mrkdwn").put("text", body)));
        }
        // a member mentioned in a block's mrkdwn is notified even when their notifications are set to mentions only
        if (!mentions.isEmpty()) {
            blocks.add(new JsonObject().put("type", "section").put("text", new JsonObject().put("type", "mrkdwn")
                    .put("text", "On call: " + String.join(" ", mentions.stream().map(id -> "<@" + id + ">")
                            .toList()))));
        }
        if (!ackable.isEmpty()) {
            JsonArray buttons = new JsonArray();
            String value = value(ackable);
            for (ChatAction action : ChatAction.values()) {
                JsonObject button = new JsonObject().put("type", "button").put("action_id", actionId(action))
                        .put("text", new JsonObject().put("type", "plain_text").put("text", action.label()))
                        .put("value", value);
                if (action == ChatAction.ACKNOWLEDGE) {
                    button.put("style", "primary");
                }
                buttons.add(button);
            }
            blocks.add(new JsonObject().put("type", "actions").put("block_id", ACTIONS_BLOCK)
                    .put("elements", buttons));
        }
        return new JsonObject().put("text", title).put("blocks", blocks);
    }

    /** The {@code action_id} of {@code action}'s button, e.g. {@code gpuwatch_ack}. */
    public static String actionId(ChatAction action) {
        return ACTION_PREFIX + action.id();
    }

    /** The fingerprints, comma-separated, as many whole ones as fit a button's value; the rest need the API. */
    private static String value(List<String> fingerprints) {
        StringBuilder out = new StringBuilder();
        for (String f : fingerprints) {
            if (out.length() + f.length() + 1 > VALUE_CHARS) {
                break;
            }
            out.append(out.isEmpty() ? "" : ",").append(f);
        }
        return out.toString();
    }
}
