package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.ack.PagerHook;
import io.gpuwatch.gateway.schedule.Person;
import io.gpuwatch.notify.chataction.ChatAction;
import io.gpuwatch.notify.receiver.feishu.FeishuActions;
import io.gpuwatch.notify.render.Markup;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The card callbacks of a Feishu (Lark) app, at {@code POST /api/v1/receivers/{receiver}/feishu-callback} for a
 * Feishu receiver given the app's Encrypt Key as {@code callbackKey}: a click on a card's Acknowledge, Resolve or
 * Silence 1h button ({@link FeishuActions}) arrives as a {@code card.action.trigger} callback (or the legacy
 * message-card request), and is taken only when {@code X-Lark-Signature} is the hex SHA-256 of
 * {@code X-Lark-Request-Timestamp + X-Lark-Request-Nonce + key + body} (compared in constant time), the timestamp
 * is within five minutes of the gateway's clock and the nonce was not seen in that window. The body may be
 * encrypted ({@code {"encrypt": …}}, AES-256-CBC under the SHA-256 of the key), as Feishu sends it once the app has
 * an Encrypt Key. The click acts as the Feishu user, named from the on-call file when their open_id is a contact
 * there; the answer carries a toast and the updated card, which Feishu shows in place of the clicked one.
 */
final class FeishuCallbacks {
    static final String TIMESTAMP_HEADER = "X-Lark-Request-Timestamp";
    static final String NONCE_HEADER = "X-Lark-Request-Nonce";
    static final String SIGNATURE_HEADER = "X-Lark-Signature";
    static final Duration WINDOW = Duration.ofMinutes(5);
    private static final int BODY_LIMIT = 256 * 1024;

    private final ApiHost gateway;
    private final AlertActions alerts;
    /** Nonces taken within the window: a replay inside it is refused. */
    private final ReplayGuard seen = new ReplayGuard(WINDOW);

    FeishuCallbacks(ApiHost gateway, AlertActions alerts) {
        this.gateway = gateway;
        this.alerts = alerts;
    }

    void mount(Router router) {
        router.post("/api/v1/receivers/:receiver/" + PagerHook.Service.FEISHU_APP.path())
                .handler(BodyHandler.create().setBodyLimit(BODY_LIMIT))
                .handler(ctx -> PagerWebhooks.hooked(gateway, ctx, PagerHook.Service.FEISHU_APP))
                .handler(this::callback);
    }

    private void callback(RoutingContext ctx) {
        PagerHook hook = ctx.get(PagerWebhooks.HOOK);
        String key = hook.secret().reveal();
        byte[] raw = PagerWebhooks.raw(ctx);
        String signature = ctx.request().getHeader(SIGNATURE_HEADER);
        String ts = ctx.request().getHeader(TIMESTAMP_HEADER);
        String nonce = ctx.request().getHeader(NONCE_HEADER);
        if (signature == null && ts == null && nonce == null) {
            // Feishu checks the request URL with an unsigned challenge, encrypted under the key
            challenge(ctx, raw, key);
            return;
        }
        Instant now = gateway.clock().instant();
        Long seconds = ts != null && ts.strip().matches("\\d{1,12}") ? Long.parseLong(ts.strip()) : null;
        if (seconds == null || Duration.between(Instant.ofEpochSecond(seconds), now).abs().compareTo(WINDOW) > 0) {
            Replies.json(ctx, 401, new JsonObject().put("error", TIMESTAMP_HEADER + " is missing or more than "
                    + WINDOW.toMinutes() + " minutes from the gateway's clock"));
            return;
        }
        if (nonce == null || nonce.isBlank() || !signed(signature, ts.strip(), nonce, key, raw)) {
            Replies.json(ctx, 401, new JsonObject().put("error", SIGNATURE_HEADER + " is missing or is not the "
                    + "SHA-256 of timestamp, nonce, the receiver's callbackKey (the app's Encrypt Key) and the body"));
            return;
        }
        if (!seen.firstTime(nonce, now)) {
            Replies.json(ctx, 409, new JsonObject().put("error", "this request was already taken; a replay is "
                    + "refused"));
            return;
        }
        JsonObject body = opened(ctx, raw, key);
        if (body == null) {
            return;
        }
        if ("url_verification".equals(body.getValue("type")) && body.getValue("challenge") instanceof String c) {
            Replies.json(ctx, 200, new JsonObject().put("challenge", c));
            return;
        }
        // schema 2.0 (card.action.trigger) nests the click under event; the legacy request has it at the top
        JsonObject event = body.getValue("event") instanceof JsonObject e ? e : body;
        String openId = event.getValue("operator") instanceof JsonObject op && op.getValue("open_id") instanceof String o
                ? o : event.getValue("open_id") instanceof String o2 ? o2 : null;
        if (openId == null || openId.isBlank()) {
            Replies.badRequest(ctx, "event.operator.open_id", "a click needs the Feishu user who made it");
            return;
        }
        Optional<ChatAction> action = Optional.empty();
        String fingerprints = null;
        if (event.getValue("action") instanceof JsonObject a && a.getValue("value") instanceof JsonObject v) {
            action = v.getValue(FeishuActions.ACTION_KEY) instanceof String id ? ChatAction.of(id) : Optional.empty();
            fingerprints = v.getValue(FeishuActions.FINGERPRINTS_KEY) instanceof String f ? f : null;
        }
        if (action.isEmpty() || fingerprints == null || fingerprints.isBlank()) {
            Replies.json(ctx, 200, new JsonObject().put("toast", toast("info", "not a gpuwatch button")));
            return;
        }
        String by = person(openId);
        String remote = ctx.request().remoteAddress() == null ? "" : ctx.request().remoteAddress().hostAddress();
        ChatAction chosen = action.get();
        List<String> fps = Arrays.stream(fingerprints.split(",")).map(String::strip).toList();
        alerts.take(chosen, fps, by, "Feishu", "feishu:" + hook.receiver(), remote)
                .onSuccess(done -> Replies.json(ctx, 200, answer(chosen, by, fps, done)))
                .onFailure(e -> Replies.unstored(ctx, "the " + chosen.label(), e));
    }

    /** The person whose Feishu contact is {@code openId} in the on-call file, with the id; the id alone if none. */
    private String person(String openId) {
        String id = openId.strip().replaceAll("\\p{Cntrl}", " ");
        return gateway.roster().people().values().stream()
                .filter(p -> p.contact("feishu").filter(id::equals).isPresent()).findFirst()
                .map(Person::name).map(name -> name + " (Feishu " + id + ")").orElse("Feishu " + id);
    }

    /** A toast saying what was done, and the card again with what happened to each alert and the buttons. */
    private static JsonObject answer(ChatAction action, String by, List<String> fps, JsonObject done) {
        StringBuilder text = new StringBuilder();
        int recorded = done.getJsonArray("recorded").size();
        for (Object o : done.getJsonArray("recorded")) {
            text.append(Markup.LARK_MD.escape(((JsonObject) o).getString("fingerprint"))).append(": ")
                    .append(past(action)).append(" by ").append(Markup.LARK_MD.escape(by)).append('\n');
        }
        for (Object o : done.getJsonArray("skipped")) {
            JsonObject s = (JsonObject) o;
            text.append(Markup.LARK_MD.escape(s.getString("fingerprint"))).append(": ")
                    .append(Markup.LARK_MD.escape(s.getString("reason"))).append('\n');
        }
        String title = "gpuwatch: " + recorded + " of " + fps.size() + " " + past(action);
        JsonObject card = FeishuActions.card(title, recorded > 0 ? "blue" : "grey", text.toString().strip(), fps);
        return new JsonObject()
                .put("toast", toast(recorded > 0 ? "success" : "info", title))
                .put("card", new JsonObject().put("type", "raw").put("data", card));
    }

    private static String past(ChatAction action) {
        return switch (action) {
            case ACKNOWLEDGE -> "acknowledged";
            case RESOLVE -> "marked resolved";
            case SILENCE -> "silenced for 1h";
        };
    }

    private static JsonObject toast(String type, String content) {
        return new JsonObject().put("type", type).put("content", content);
    }

    /** Answers Feishu's URL check: the challenge back, once the body opened under the key proves who sent it. */
    private static void challenge(RoutingContext ctx, byte[] raw, String key) {
        JsonObject body = object(raw);
        if (body == null || !(body.getValue("encrypt") instanceof String)) {
            Replies.json(ctx, 401, new JsonObject().put("error", "unsigned requests are taken only for Feishu's "
                    + "encrypted URL check"));
            return;
        }
        JsonObject opened = decrypted((String) body.getValue("encrypt"), key);
        if (opened == null || !"url_verification".equals(opened.getValue("type"))
                || !(opened.getValue("challenge") instanceof String c)) {
            Replies.json(ctx, 401, new JsonObject().put("error", "the body does not open under the receiver's "
                    + "callbackKey as Feishu's URL check"));
            return;
        }
        Replies.json(ctx, 200, new JsonObject().put("challenge", c));
    }

    /** The callback's JSON, decrypted when Feishu encrypted it; null after answering 400. */
    private static JsonObject opened(RoutingContext ctx, byte[] raw, String key) {
        JsonObject body = object(raw);
        if (body == null) {
            Replies.badRequest(ctx, "body", "a JSON object is required");
            return null;
        }
        if (!(body.getValue("encrypt") instanceof String encrypted)) {
            return body;
        }
        JsonObject opened = decrypted(encrypted, key);
        if (opened == null) {
            Replies.badRequest(ctx, "encrypt", "does not decrypt under the receiver's callbackKey");
        }
        return opened;
    }

    private static JsonObject object(byte[] raw) {
        try {
            return Buffer.buffer(raw).toJsonValue() instanceof JsonObject o ? o : null;
        } catch (DecodeException e) {
            return null;
        }
    }

    /**
     * Feishu's encryption: Base64 of a 16-byte IV and the AES-256-CBC (PKCS#7) ciphertext under the SHA-256 of the
     * Encrypt Key; the JSON inside, or null when it does not open.
     */
    static JsonObject decrypted(String encrypted, String key) {
        try {
            byte[] all = Base64.getDecoder().decode(encrypted.strip());
            if (all.length <= 16 || all.length % 16 != 0) {
                return null;
            }
            Cipher aes = Cipher.getInstance("AES/CBC/PKCS5Padding");
            aes.init(Cipher.DECRYPT_MODE, new SecretKeySpec(sha256(key.getBytes(StandardCharsets.UTF_8)), "AES"),
                    new IvParameterSpec(all, 0, 16));
            return object(aes.doFinal(all, 16, all.length - 16));
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            return null;
        }
    }

    /** True when {@code header} is the hex SHA-256 of timestamp, nonce, key and body; compared in constant time. */
    static boolean signed(String header, String timestamp, String nonce, String key, byte[] body) {
        if (header == null) {
            return false;
        }
        byte[] head = (timestamp + nonce + key).getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        byte[] expected = HexFormat.of().formatHex(sha256(all)).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, header.strip().toLowerCase(Locale.ROOT)
                .getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM cannot compute SHA-256", e);
        }
    }
}
