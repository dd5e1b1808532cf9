package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.ack.PagerHook;
import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.schedule.RosterLoad;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.notify.render.Markup;
import io.gpuwatch.notify.secret.Secret;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Card callbacks from a Feishu app, against requests recorded in the shape Feishu posts them (test resources
 * feishu/card_action_trigger.json, feishu/url_verification.json): encrypted and signed with the app's Encrypt Key
 * they act as the Feishu user, named from the on-call file, and answer with a toast and the updated card; a wrong
 * signature, a changed body, a stale timestamp, a missing nonce and a replayed nonce are refused and change
 * nothing; the URL check is answered only when it opens under the key.
 */
@ExtendWith(VertxExtension.class)
class FeishuCallbacksTest {
    private static final String KEY = "kudryavtsev-encrypt-key-0123456789";
    private static final String PATH = "/api/v1/receivers/lark/feishu-callback";
    private static final String WEI = "ou_7d8a6e6df7621556ce0d21922b676706";

    @TempDir
    Path dir;

    private final ChatHookGateway hooks = new ChatHookGateway();
    private final AtomicLong now = hooks.now;

    private Gateway start(Vertx vertx) throws Exception {
        Path oncall = Path.of("../examples/oncall/oncall.yaml");
        RosterLoad roster = Roster.load(oncall);
        assertTrue(roster.ok(), roster.diagnostics().toString());
        return hooks.start(vertx, dir, new PagerHook("lark", PagerHook.Service.FEISHU_APP, Secret.of(KEY, "test")),
                g -> g.roster(roster.roster(), oncall));
    }

    private static String fixture(String name) throws Exception {
        return Files.readString(Path.of("src/test/resources/feishu/" + name));
    }

    private static String click(String action, String fingerprints) throws Exception {
        return new JsonObject(fixture("card_action_trigger.json").replace("ACTION", action)
                .replace("FINGERPRINTS", fingerprints)).encode();
    }

    /** Feishu's encryption of {@code json} under {@code key}: Base64(IV + AES-256-CBC), key = SHA-256(key). */
    private static String encrypted(String json, String key) throws Exception {
        byte[] iv = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
        Cipher aes = Cipher.getInstance("AES/CBC/PKCS5Padding");
        aes.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(MessageDigest.getInstance("SHA-256")
                .digest(key.getBytes(StandardCharsets.UTF_8)), "AES"), new IvParameterSpec(iv));
        byte[] ct = aes.doFinal(json.getBytes(StandardCharsets.UTF_8));
        byte[] all = new byte[16 + ct.length];
        System.arraycopy(iv, 0, all, 0, 16);
        System.arraycopy(ct, 0, all, 16, ct.length);
        return new JsonObject().put("encrypt", Base64.getEncoder().encodeToString(all)).encode();
    }

    private static String sign(String ts, String nonce, String key, String body) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest((ts + nonce + key + body).getBytes(StandardCharsets.UTF_8)));
    }

    private static HttpResponse<Buffer> post(WebClient web, Gateway g, String path, String ts, String nonce,
                                             String signature, String body) throws Exception {
        return ChatHookGateway.post(web, g, path, "application/json", body, FeishuCallbacks.TIMESTAMP_HEADER, ts,
                FeishuCallbacks.NONCE_HEADER, nonce, FeishuCallbacks.SIGNATURE_HEADER, signature);
    }

    @Test
    void aSignedEncryptedClickAcknowledgesAsTheFeishuUserAndUpdatesTheCard(Vertx vertx) throws Exception {
        Gateway g = start(vertx);
        WebClient web = WebClient.create(vertx);
        List<String> live = g.ledger().live().stream().map(Alert::fingerprint).sorted().toList();
        String body = encrypted(click("ack", live.get(0) + ",0000000000000000"), KEY);
        String ts = String.valueOf(now.get() / 1000 - 10);

        assertEquals(401, post(web, g, PATH, ts, "n-1", sign(ts, "n-1", "another-key", body), body).statusCode(),
                "signed with another key");
        assertEquals(401, post(web, g, PATH, ts, "n-1", sign(ts, "n-1", KEY, body + " "), body).statusCode(),
                "the body was changed after signing");
        String stale = String.valueOf(now.get() / 1000 - 301);
        assertEquals(401, post(web, g, PATH, stale, "n-1", sign(stale, "n-1", KEY, body), body).statusCode(),
                "older than five minutes");
        assertEquals(401, post(web, g, PATH, ts, null, sign(ts, "", KEY, body), body).statusCode(), "no nonce");
        assertEquals(401, post(web, g, PATH, ts, "n-1", null, body).statusCode(), "no signature");
        assertEquals(404, post(web, g, "/api/v1/receivers/quiet/feishu-callback", ts, "n-1",
                sign(ts, "n-1", KEY, body), body).statusCode(), "a receiver without callbackKey takes none");
        assertTrue(g.acknowledgements().all().isEmpty(), "nothing refused was kept");

        HttpResponse<Buffer> ok = post(web, g, PATH, ts, "n-1", sign(ts, "n-1", KEY, body), body);
        assertEquals(200, ok.statusCode(), ok.bodyAsString());
        Acknowledgement ack = g.acknowledgements().of(live.get(0)).orElseThrow();
        assertEquals("Wei Zhang (Feishu " + WEI + ")", ack.by(), "named from the on-call file");
        assertEquals("feishu", ack.source());
        assertTrue(g.acknowledgements().of(live.get(1)).isEmpty(), "only the alerts of the button");

        JsonObject answer = ok.bodyAsJsonObject();
        assertEquals("success", answer.getJsonObject("toast").getString("type"));
        assertEquals("gpuwatch: 1 of 2 acknowledged", answer.getJsonObject("toast").getString("content"));
        assertEquals("raw", answer.getJsonObject("card").getString("type"));
        JsonObject card = answer.getJsonObject("card").getJsonObject("data");
        String text = card.getJsonArray("elements").getJsonObject(0).getJsonObject("text").getString("content");
        assertTrue(text.contains(live.get(0) + ": acknowledged by "
                + Markup.LARK_MD.escape("Wei Zhang (Feishu " + WEI + ")")), "escaped for lark_md: " + text);
        assertTrue(text.contains("0000000000000000: not a live alert"), text);
        JsonArray buttons = card.getJsonArray("elements").getJsonObject(1).getJsonArray("actions");
        assertEquals(List.of("ack", "resolve", "silence"), buttons.stream()
                .map(b -> ((JsonObject) b).getJsonObject("value").getString("gpuwatch")).toList(),
                "the card keeps its buttons, so Resolve and Silence stay at hand");

        assertEquals(409, post(web, g, PATH, ts, "n-1", sign(ts, "n-1", KEY, body), body).statusCode(),
                "the same nonce again is a replay");

        JsonObject entry = ChatHookGateway.audit(web, g, "alert.ack").get(0);
        assertEquals("feishu:lark", entry.getString("who"));
        assertEquals("by Wei Zhang (Feishu " + WEI + ")", entry.getString("detail"));
    }

    @Test
    void aPlainSignedSilenceClickFromSomeoneOutsideTheRosterSilencesAsTheirOpenId(Vertx vertx) throws Exception {
        Gateway g = start(vertx);
        WebClient web = WebClient.create(vertx);
        Alert hot = g.ledger().live().stream().min(Comparator.comparing(Alert::fingerprint)).orElseThrow();
        String body = click("silence", hot.fingerprint()).replace(WEI, "ou_0000000000000000000000000000beef");
        String ts = String.valueOf(now.get() / 1000);
        HttpResponse<Buffer> ok = post(web, g, PATH, ts, "n-2", sign(ts, "n-2", KEY, body), body);
        assertEquals(200, ok.statusCode(), ok.bodyAsString());
        List<String> silences = g.dispatcher().silences().silenced(hot.labels(), Instant.ofEpochMilli(now.get()));
        assertEquals(1, silences.size());
        assertEquals("Feishu ou_0000000000000000000000000000beef",
                g.dispatcher().silences().get(silences.get(0)).orElseThrow().createdBy());
        assertTrue(g.acknowledgements().all().isEmpty());
    }

    @Test
    void theUrlCheckIsAnsweredOnlyWhenItOpensUnderTheKey(Vertx vertx) throws Exception {
        Gateway g = start(vertx);
        WebClient web = WebClient.create(vertx);
        String check = new JsonObject(fixture("url_verification.json")).encode();
        HttpResponse<Buffer> ok = post(web, g, PATH, null, null, null, encrypted(check, KEY));
        assertEquals(200, ok.statusCode(), ok.bodyAsString());
        assertEquals("ajls384kdjx98XX", ok.bodyAsJsonObject().getString("challenge"));
        assertEquals(401, post(web, g, PATH, null, null, null, encrypted(check, "another-key")).statusCode());
        assertEquals(401, post(web, g, PATH, null, null, null, check).statusCode(), "plain and unsigned");
        assertNull(FeishuCallbacks.decrypted("bm90IGEgY2lwaGVydGV4dA==", KEY), "not a ciphertext");
    }
}
