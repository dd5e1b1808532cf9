package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.ack.PagerHook;
import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.gateway.store.AuditEntry;
import io.gpuwatch.notify.receiver.opsgenie.OpsgenieReceiver;
import io.gpuwatch.notify.receiver.pagerduty.PagerDutyReceiver;
import io.gpuwatch.notify.secret.Secret;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.logging.Logger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Acknowledgements made in a paging service, reported by its webhook: PagerDuty's V3 webhooks, signed with the
 * subscription's secret, at {@code POST /api/v1/receivers/{receiver}/pagerduty-webhook}, and Opsgenie's outgoing
 * webhooks, carrying the secret in {@value #OPSGENIE_SECRET_HEADER}, at {@code …/opsgenie-webhook}. An
 * acknowledgement is kept as one given over the API is, but no pager is told of it, since it came from one
 * (telling it back would echo). Whatever is not an acknowledgement of a live alert is answered 2xx and ignored,
 * since both services retry anything else.
 */
final class PagerWebhooks {
    static final String PAGERDUTY_SIGNATURE_HEADER = "X-PagerDuty-Signature";
    static final String OPSGENIE_SECRET_HEADER = "X-Gpuwatch-Webhook-Secret";
    /** PagerDuty's incident payloads run to a few kilobytes; this is far above them. */
    private static final int BODY_LIMIT = 1024 * 1024;
    private static final int LOGGED_KEY_CHARS = 200;
    static final String HOOK = "gpuwatch.pagerHook";
    private static final Logger LOG = Logger.getLogger(PagerWebhooks.class.getName());

    private final ApiHost gateway;
    private final AckRecorder acks;

    PagerWebhooks(ApiHost gateway, AckRecorder acks) {
        this.gateway = gateway;
        this.acks = acks;
    }

    void mount(Router router) {
        // Slack's button clicks have their own route (ChatActions)
        for (PagerHook.Service service : List.of(PagerHook.Service.PAGERDUTY, PagerHook.Service.OPSGENIE)) {
            router.post("/api/v1/receivers/:receiver/" + service.path())
                    .handler(BodyHandler.create().setBodyLimit(BODY_LIMIT))
                    .handler(ctx -> hooked(gateway, ctx, service))
                    .handler(service == PagerHook.Service.PAGERDUTY ? this::pagerDuty : this::opsgenie);
        }
    }

    /** Goes on with the receiver's hook of {@code service}; a receiver without one has no such route. */
    static void hooked(ApiHost gateway, RoutingContext ctx, PagerHook.Service service) {
        String receiver = ctx.pathParam("receiver");
        Optional<PagerHook> hook = gateway.pagerHooks().stream()
                .filter(h -> h.service() == service && h.receiver().equals(receiver)).findFirst();
        if (hook.isEmpty()) {
            String field = service == PagerHook.Service.FEISHU_APP ? "callbackKey" : "webhookSecret";
            Replies.json(ctx, 404, new JsonObject().put("error", "receiver " + receiver + " takes no "
                    + service.path() + " (give it " + field + " in the alerting file)"));
            return;
        }
        ctx.put(HOOK, hook.get());
        ctx.next();
    }

    private void pagerDuty(RoutingContext ctx) {
        PagerHook hook = ctx.get(HOOK);
        byte[] raw = raw(ctx);
        if (!signed(ctx.request().getHeader(PAGERDUTY_SIGNATURE_HEADER), raw, hook.secret())) {
            Replies.json(ctx, 401, new JsonObject().put("error", PAGERDUTY_SIGNATURE_HEADER + " is missing or no"
                    + " v1 signature in it matches the body signed with the receiver's webhookSecret"));
            return;
        }
        JsonObject body = object(ctx, raw);
        if (body == null) {
            return;
        }
        if (!(body.getValue("event") instanceof JsonObject event)) {
            Replies.badRequest(ctx, "event", "a V3 webhook's event object is required");
            return;
        }
        if (!(event.getValue("event_type") instanceof String type)) {
            Replies.badRequest(ctx, "event.event_type", "expected the event type as text");
            return;
        }
        if (!type.equals("incident.acknowledged")) {
            ignored(ctx, "event type " + type + " is not an acknowledgement");
            return;
        }
        if (!(event.getValue("data") instanceof JsonObject data)) {
            Replies.badRequest(ctx, "event.data", "an incident.acknowledged event needs its incident as data");
            return;
        }
        Object key = data.getValue("incident_key");
        if (key == null) {
            ignored(ctx, "the incident has no incident_key, so it was not opened by gpuwatch");
            return;
        }
        if (!(key instanceof String incidentKey)) {
            Replies.badRequest(ctx, "event.data.incident_key", "expected text");
            return;
        }
        String by = person(ctx, event.getValue("agent"), "event.agent", "summary", "PagerDuty");
        if (by != null) {
            fromPager(ctx, hook, incidentKey, PagerDutyReceiver::dedupKey, by, "acknowledged in PagerDuty",
                    "pagerduty");
        }
    }

    private void opsgenie(RoutingContext ctx) {
        PagerHook hook = ctx.get(HOOK);
        if (!sameSecret(ctx.request().getHeader(OPSGENIE_SECRET_HEADER), hook.secret())) {
            Replies.json(ctx, 401, new JsonObject().put("error", OPSGENIE_SECRET_HEADER
                    + " is missing or is not the receiver's webhookSecret"));
            return;
        }
        JsonObject body = object(ctx, raw(ctx));
        if (body == null) {
            return;
        }
        if (!(body.getValue("action") instanceof String action)) {
            Replies.badRequest(ctx, "action", "expected the webhook's action as text");
            return;
        }
        if (!action.equalsIgnoreCase("Acknowledge")) {
            ignored(ctx, "action " + action + " is not an acknowledgement");
            return;
        }
        if (!(body.getValue("alert") instanceof JsonObject alert)) {
            Replies.badRequest(ctx, "alert", "an Acknowledge action needs its alert object");
            return;
        }
        if (!(alert.getValue("alias") instanceof String alias) || alias.isBlank()) {
            Replies.badRequest(ctx, "alert.alias", "expected the alert's alias as text");
            return;
        }
        Object username = alert.getValue("username");
        if (username != null && !(username instanceof String)) {
            Replies.badRequest(ctx, "alert.username", "expected text");
            return;
        }
        String by = username == null || ((String) username).isBlank() ? "Opsgenie" : ((String) username).strip();
        fromPager(ctx, hook, alias, OpsgenieReceiver::alias, by, "acknowledged in Opsgenie", "opsgenie");
    }

    /**
     * Records the acknowledgement of the live alert whose key at the service ({@code keyOf} its fingerprint) is
     * {@code key}. An alert already acknowledged in its current episode keeps that acknowledgement, so the echo
     * of one given over the API, which the service reports too, does not replace who gave it.
     */
    private void fromPager(RoutingContext ctx, PagerHook hook, String key, UnaryOperator<String> keyOf, String by,
                           String comment, String source) {
        List<Alert> live = gateway.ledger().live();
        Optional<Alert> alert = live.stream().filter(a -> keyOf.apply(a.fingerprint()).equals(key)).findFirst();
        if (alert.isEmpty()) {
            LOG.info(hook.service().path() + " of receiver " + hook.receiver() + ": acknowledgement of key "
                    + logged(key) + ", which is no live alert's, ignored");
            ignored(ctx, "no live alert has this key");
            return;
        }
        Alert a = alert.get();
        Optional<Acknowledgement> before = gateway.acknowledgements().of(a.fingerprint(), a.activeSince());
        if (before.isPresent()) {
            Replies.json(ctx, 200, new JsonObject().put("recorded", false).put("fingerprint", a.fingerprint())
                    .put("reason", "already acknowledged").put("acked", AckRecorder.json(before.get())));
            return;
        }
        Acknowledgement ack = new Acknowledgement(a.fingerprint(), by, gateway.clock().instant(), comment, source);
        String remote = ctx.request().remoteAddress() == null ? "" : ctx.request().remoteAddress().hostAddress();
        acks.record(ack, new AuditEntry(0, ack.at(), source + ":" + hook.receiver(), "alert.ack", a.fingerprint(),
                        "by " + by, remote))
                .onSuccess(v -> gateway.cluster().ifPresent(c -> c.share(ack)))
                .onSuccess(v -> Replies.json(ctx, 200, new JsonObject().put("recorded", true)
                        .put("fingerprint", a.fingerprint()).put("acked", AckRecorder.json(ack))))
                .onFailure(e -> Replies.unstored(ctx, "the acknowledgement", e));
    }

    /**
     * The text {@code field} of the optional object {@code value} at {@code path}, {@code fallback} when either
     * is absent or blank; null after answering 400 when either has the wrong type.
     */
    private static String person(RoutingContext ctx, Object value, String path, String field, String fallback) {
        if (value == null) {
            return fallback;
        }
        if (!(value instanceof JsonObject o)) {
            Replies.badRequest(ctx, path, "expected an object");
            return null;
        }
        Object text = o.getValue(field);
        if (text != null && !(text instanceof String)) {
            Replies.badRequest(ctx, path + "." + field, "expected text");
            return null;
        }
        return text == null || ((String) text).isBlank() ? fallback : ((String) text).strip();
    }

    static void ignored(RoutingContext ctx, String reason) {
        Replies.json(ctx, 200, new JsonObject().put("recorded", false).put("reason", reason));
    }

    static byte[] raw(RoutingContext ctx) {
        Buffer b = ctx.body().buffer();
        return b == null ? new byte[0] : b.getBytes();
    }

    /** The body as a JSON object, or null after answering 400. */
    static JsonObject object(RoutingContext ctx, byte[] raw) {
        try {
            Object parsed = Buffer.buffer(raw).toJsonValue();
            if (parsed instanceof JsonObject o) {
                return o;
            }
            Replies.badRequest(ctx, "body", "a JSON object is required");
        } catch (DecodeException e) {
            Replies.badRequest(ctx, "body", "not JSON: " + e.getMessage());
        }
        return null;
    }

    /**
     * True when one of the header's comma-separated {@code v1=HEX} signatures is the HMAC-SHA256 of {@code body}
     * under {@code secret}; PagerDuty sends several while a subscription's secret is being rotated.
     */
    private static boolean signed(String header, byte[] body, Secret secret) {
        if (header == null) {
            return false;
        }
        byte[] expected = HexFormat.of().formatHex(hmac(secret.reveal(), body)).getBytes(StandardCharsets.US_ASCII);
        boolean match = false;
        for (String part : header.split(",")) {
            String p = part.strip();
            if (p.startsWith("v1=")) {
                // constant time, and every signature compared, so the time taken tells nothing about the secret
                match |= MessageDigest.isEqual(expected,
                        p.substring(3).toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII));
            }
        }
        return match;
    }

    /** Compares digests rather than the texts, so neither the secret's content nor its length leaks in time. */
    private static boolean sameSecret(String given, Secret secret) {
        if (given == null) {
            return false;
        }
        return MessageDigest.isEqual(sha256(given.strip()), sha256(secret.reveal()));
    }

    static byte[] hmac(String key, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM cannot compute HMAC-SHA256", e);
        }
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM cannot compute SHA-256", e);
        }
    }

    private static String logged(String key) {
        String printable = key.replaceAll("\\p{Cntrl}", "?");
        return printable.length() <= LOGGED_KEY_CHARS ? printable : printable.substring(0, LOGGED_KEY_CHARS) + "…";
    }
}
