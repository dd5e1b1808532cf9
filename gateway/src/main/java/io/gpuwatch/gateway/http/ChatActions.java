package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.ack.PagerHook;
import io.gpuwatch.notify.chataction.ChatAction;
import io.gpuwatch.notify.receiver.slack.SlackMessage;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * Clicks on the Acknowledge, Resolve and Silence 1h buttons of a Slack message, which Slack posts to
 * {@code POST /api/v1/receivers/{receiver}/slack-webhook} for a Slack receiver given its app's signing secret as
 * {@code webhookSecret}. Each request must carry Slack's v0 signature (HMAC-SHA256 of {@code v0:timestamp:body})
 * checked in constant time, a timestamp within five minutes of the gateway's clock, and a signature not seen
 * before: a replayed request is refused. What the click does is {@link AlertActions}'s, audited with the Slack
 * user who clicked.
 */
final class ChatActions {
    static final String TIMESTAMP_HEADER = "X-Slack-Request-Timestamp";
    static final String SIGNATURE_HEADER = "X-Slack-Signature";
    /** Slack's own advice for how old a request may be. */
    static final Duration WINDOW = Duration.ofMinutes(5);
    /** Interaction payloads are a few kilobytes. */
    private static final int BODY_LIMIT = 256 * 1024;

    private final ApiHost gateway;
    private final AlertActions alerts;
    /** Signatures taken within the window: a replay inside it is refused. */
    private final ReplayGuard seen = new ReplayGuard(WINDOW);

    ChatActions(ApiHost gateway, AlertActions alerts) {
        this.gateway = gateway;
        this.alerts = alerts;
    }

    void mount(Router router) {
        router.post("/api/v1/receivers/:receiver/" + PagerHook.Service.SLACK.path())
                .handler(BodyHandler.create().setBodyLimit(BODY_LIMIT))
                .handler(ctx -> PagerWebhooks.hooked(gateway, ctx, PagerHook.Service.SLACK))
                .handler(this::slack);
    }

    private void slack(RoutingContext ctx) {
        PagerHook hook = ctx.get(PagerWebhooks.HOOK);
        byte[] raw = PagerWebhooks.raw(ctx);
        Instant now = gateway.clock().instant();
        String ts = ctx.request().getHeader(TIMESTAMP_HEADER);
        Long seconds = ts != null && ts.strip().matches("\\d{1,12}") ? Long.parseLong(ts.strip()) : null;
        if (seconds == null || Duration.between(Instant.ofEpochSecond(seconds), now).abs().compareTo(WINDOW) > 0) {
            Replies.json(ctx, 401, new JsonObject().put("error", TIMESTAMP_HEADER + " is missing or more than "
                    + WINDOW.toMinutes() + " minutes from the gateway's clock"));
            return;
        }
        String signature = ctx.request().getHeader(SIGNATURE_HEADER);
        if (!signed(signature, ts.strip(), raw, hook.secret().reveal())) {
            Replies.json(ctx, 401, new JsonObject().put("error", SIGNATURE_HEADER + " is missing or is not the v0 "
                    + "signature of the request under the receiver's webhookSecret (the Slack app's signing secret)"));
            return;
        }
        if (!seen.firstTime(signature.strip(), now)) {
            Replies.json(ctx, 409, new JsonObject().put("error", "this request was already taken; a replay is "
                    + "refused"));
            return;
        }
        JsonObject payload = payload(ctx, raw);
        if (payload == null) {
            return;
        }
        if (!"block_actions".equals(payload.getValue("type"))) {
            PagerWebhooks.ignored(ctx, "interaction type " + payload.getValue("type") + " is not a button click");
            return;
        }
        if (!(payload.getValue("user") instanceof JsonObject user) || !(user.getValue("id") instanceof String id)
                || id.isBlank()) {
            Replies.badRequest(ctx, "payload.user.id", "a click needs the Slack user who made it");
            return;
        }
        String name = user.getValue("username") instanceof String u && !u.isBlank() ? u.strip()
                : user.getValue("name") instanceof String n && !n.isBlank() ? n.strip() : id;
        Optional<Click> click = actions(payload).stream().map(ChatActions::click).flatMap(Optional::stream)
                .findFirst();
        if (click.isEmpty()) {
            PagerWebhooks.ignored(ctx, "no gpuwatch Acknowledge, Resolve or Silence action in the click");
            return;
        }
        String by = name + " (Slack " + id + ")";
        String remote = ctx.request().remoteAddress() == null ? "" : ctx.request().remoteAddress().hostAddress();
        alerts.take(click.get().action(), List.of(click.get().fingerprints().split(",")), by, "Slack",
                        "slack:" + hook.receiver(), remote)
                .onSuccess(answer -> Replies.json(ctx, 200, answer))
                .onFailure(e -> Replies.unstored(ctx, "the " + click.get().action().label(), e));
    }

    /** One gpuwatch button's action and the fingerprints it carries. */
    private record Click(ChatAction action, String fingerprints) {
    }

    private static Optional<Click> click(JsonObject action) {
        if (!(action.getValue("action_id") instanceof String actionId)
                || !actionId.startsWith(SlackMessage.ACTION_PREFIX)
                || !(action.getValue("value") instanceof String value)) {
            return Optional.empty();
        }
        return ChatAction.of(actionId.substring(SlackMessage.ACTION_PREFIX.length())).map(a -> new Click(a, value));
    }

    /**
     * True when {@code header} is {@code v0=} and the hex HMAC-SHA256, under {@code secret}, of
     * {@code v0:timestamp:body}; compared in constant time.
     */
    static boolean signed(String header, String timestamp, byte[] body, String secret) {
        if (header == null) {
            return false;
        }
        byte[] base = ("v0:" + timestamp + ":").getBytes(StandardCharsets.UTF_8);
        byte[] signed = new byte[base.length + body.length];
        System.arraycopy(base, 0, signed, 0, base.length);
        System.arraycopy(body, 0, signed, base.length, body.length);
        byte[] expected = ("v0=" + HexFormat.of().formatHex(PagerWebhooks.hmac(secret, signed)))
                .getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, header.strip().getBytes(StandardCharsets.US_ASCII));
    }

    /** The {@code payload} form field as JSON, or null after answering 400. */
    private static JsonObject payload(RoutingContext ctx, byte[] raw) {
        String form = new String(raw, StandardCharsets.UTF_8);
        for (String pair : form.split("&")) {
            if (pair.startsWith("payload=")) {
                try {
                    return new JsonObject(URLDecoder.decode(pair.substring("payload=".length()),
                            StandardCharsets.UTF_8));
                } catch (DecodeException | IllegalArgumentException e) {
                    Replies.badRequest(ctx, "payload", "not a JSON object: " + e.getMessage());
                    return null;
                }
            }
        }
        Replies.badRequest(ctx, "payload", "Slack posts interactions as a form with a payload field");
        return null;
    }

    private static List<JsonObject> actions(JsonObject payload) {
        if (!(payload.getValue("actions") instanceof JsonArray list)) {
            return List.of();
        }
        return list.stream().filter(JsonObject.class::isInstance).map(JsonObject.class::cast).toList();
    }
}
