package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.ack.PagerHook;
import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.ledger.PersistentLedger;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.notify.secret.Secret;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import static io.gpuwatch.gateway.http.ChatHookGateway.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clicks from Slack: Slack's documented signature example verifies, and a click recorded in the shape Slack
 * posts it (test resource slack/block_actions.json) acknowledges the alerts of its button when signed with the
 * receiver's signing secret, is audited with the Slack user, and is refused when unsigned, wrongly signed,
 * stale, or replayed; the Silence 1h and Resolve buttons silence the alert's labels (Resolve until it resolves).
 */
@ExtendWith(VertxExtension.class)
class ChatActionsTest {
    private static final String SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
    private static final String PATH = "/api/v1/receivers/chat/slack-webhook";

    @TempDir
    Path dir;

    private final ChatHookGateway hooks = new ChatHookGateway();
    private final AtomicLong now = hooks.now;

    @Test
    void slacksOwnDocumentedExampleVerifies() {
        // api.slack.com/authentication/verifying-requests-from-slack: its secret, timestamp, body and signature
        String body = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V"
                + "&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text="
                + "&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F"
                + "96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
        String signature = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
        byte[] raw = body.getBytes(StandardCharsets.UTF_8);
        assertTrue(ChatActions.signed(signature, "1531420618", raw, SECRET));
        assertFalse(ChatActions.signed(signature, "1531420619", raw, SECRET), "another timestamp");
        assertFalse(ChatActions.signed(signature, "1531420618", raw, SECRET + "x"), "another secret");
        assertFalse(ChatActions.signed(signature.replace("v0=a2", "v0=b2"), "1531420618", raw, SECRET));
        assertFalse(ChatActions.signed(null, "1531420618", raw, SECRET));
    }

    private Gateway start(Vertx vertx) throws Exception {
        return hooks.start(vertx, dir, new PagerHook("chat", PagerHook.Service.SLACK, Secret.of(SECRET, "test")));
    }

    /** The recorded click with {@code fingerprints} as its button's value, form-encoded as Slack posts it. */
    private static String click(List<String> fingerprints) throws Exception {
        return click("gpuwatch_ack", fingerprints);
    }

    /** As {@link #click(List)}, on the button whose action_id is {@code actionId}. */
    private static String click(String actionId, List<String> fingerprints) throws Exception {
        String json = Files.readString(Path.of("src/test/resources/slack/block_actions.json"))
                .replace("FINGERPRINTS", String.join(",", fingerprints)).replace("gpuwatch_ack", actionId);
        return "payload=" + URLEncoder.encode(new JsonObject(json).encode(), StandardCharsets.UTF_8);
    }

    private static String sign(String secret, String timestamp, String body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return "v0=" + HexFormat.of().formatHex(mac.doFinal(("v0:" + timestamp + ":" + body)
                .getBytes(StandardCharsets.UTF_8)));
    }

    private static HttpResponse<Buffer> post(WebClient web, Gateway g, String path, String timestamp,
                                             String signature, String body) throws Exception {
        return ChatHookGateway.post(web, g, path, "application/x-www-form-urlencoded", body,
                ChatActions.TIMESTAMP_HEADER, timestamp, ChatActions.SIGNATURE_HEADER, signature);
    }

    @Test
    void aSignedClickAcknowledgesTheAlertsOfItsButtonAsTheSlackUser(Vertx vertx) throws Exception {
        Gateway g = start(vertx);
        WebClient web = WebClient.create(vertx);
        List<String> live = g.ledger().live().stream().map(Alert::fingerprint).sorted().toList();
        assertEquals(2, live.size());
        now.addAndGet(60_000);
        String ts = String.valueOf(now.get() / 1000 - 20);
        String body = click(List.of(live.get(0), "0000000000000000"));

        assertEquals(401, post(web, g, PATH, ts, null, body).statusCode(), "unsigned");
        assertEquals(401, post(web, g, PATH, ts, sign("another-secret", ts, body), body).statusCode(),
                "signed with another secret");
        assertEquals(401, post(web, g, PATH, ts, sign(SECRET, ts, body + "&x=1"), body).statusCode(),
                "the body was changed after signing");
        String stale = String.valueOf(now.get() / 1000 - 301);
        assertEquals(401, post(web, g, PATH, stale, sign(SECRET, stale, body), body).statusCode(),
                "older than five minutes");
        assertEquals(401, post(web, g, PATH, null, sign(SECRET, ts, body), body).statusCode(), "no timestamp");
        assertEquals(404, post(web, g, "/api/v1/receivers/quiet/slack-webhook", ts, sign(SECRET, ts, body), body)
                .statusCode(), "a receiver without webhookSecret takes no clicks");
        assertTrue(g.acknowledgements().all().isEmpty(), "nothing refused was kept");

        HttpResponse<Buffer> ok = post(web, g, PATH, ts, sign(SECRET, ts, body), body);
        assertEquals(200, ok.statusCode(), ok.bodyAsString());
        JsonObject answer = ok.bodyAsJsonObject();
        assertEquals("ana.souza (Slack U0ANA0001)", answer.getString("by"));
        assertEquals(1, answer.getJsonArray("recorded").size());
        assertEquals(live.get(0), answer.getJsonArray("recorded").getJsonObject(0).getString("fingerprint"));
        assertEquals("not a live alert", answer.getJsonArray("skipped").getJsonObject(0).getString("reason"));
        Acknowledgement ack = g.acknowledgements().of(live.get(0)).orElseThrow();
        assertEquals("ana.souza (Slack U0ANA0001)", ack.by());
        assertEquals("slack", ack.source());
        assertTrue(g.acknowledgements().of(live.get(1)).isEmpty(), "only the alerts of the button");

        assertEquals(409, post(web, g, PATH, ts, sign(SECRET, ts, body), body).statusCode(),
                "the same request again is a replay");

        JsonObject entry = ChatHookGateway.audit(web, g, "alert.ack").get(0);
        assertEquals("slack:chat", entry.getString("who"));
        assertEquals(live.get(0), entry.getString("target"));
        assertEquals("by ana.souza (Slack U0ANA0001)", entry.getString("detail"));

        // a later click on the same button is a new request (new timestamp and signature) and changes nothing
        now.addAndGet(5_000);
        String later = String.valueOf(now.get() / 1000);
        JsonObject again = post(web, g, PATH, later, sign(SECRET, later, body), body).bodyAsJsonObject();
        assertEquals(0, again.getJsonArray("recorded").size());
        assertEquals("already acknowledged", again.getJsonArray("skipped").getJsonObject(0).getString("reason"));
    }

    private static JsonObject signedClick(WebClient web, Gateway g, String actionId, String fingerprint, long at)
            throws Exception {
        String ts = String.valueOf(at / 1000);
        String body = click(actionId, List.of(fingerprint));
        HttpResponse<Buffer> ok = post(web, g, PATH, ts, sign(SECRET, ts, body), body);
        assertEquals(200, ok.statusCode(), ok.bodyAsString());
        return ok.bodyAsJsonObject();
    }

    @Test
    void silenceOneHourSilencesTheAlertsLabelsForAnHourAsTheSlackUser(Vertx vertx) throws Exception {
        Gateway g = start(vertx);
        WebClient web = WebClient.create(vertx);
        Alert hot = g.ledger().live().stream().min(Comparator.comparing(Alert::fingerprint)).orElseThrow();
        JsonObject answer = signedClick(web, g, "gpuwatch_silence", hot.fingerprint(), now.get());
        assertEquals("silence", answer.getString("action"));
        String id = answer.getJsonArray("recorded").getJsonObject(0).getString("silence");
        Silence s = g.dispatcher().silences().get(id).orElseThrow();
        assertEquals(Instant.ofEpochMilli(now.get()).plus(Duration.ofHours(1)), s.endsAt());
        assertEquals("ana.souza (Slack U0ANA0001)", s.createdBy());
        assertEquals(List.of(id), g.dispatcher().silences().silenced(hot.labels(), Instant.ofEpochMilli(now.get())));
        Alert other = g.ledger().live().stream().filter(a -> a != hot && !a.fingerprint().equals(hot.fingerprint()))
                .findFirst().orElseThrow();
        assertTrue(g.dispatcher().silences().silenced(other.labels(), Instant.ofEpochMilli(now.get())).isEmpty(),
                "only the clicked alert's labels");
        assertTrue(g.acknowledgements().all().isEmpty(), "silencing does not acknowledge");
        JsonObject entry = ChatHookGateway.audit(web, g, "silence.create").get(0);
        assertEquals("slack:chat", entry.getString("who"));
        assertEquals(id, entry.getString("target"));
        assertTrue(entry.getString("detail").contains("by ana.souza (Slack U0ANA0001)"), entry.encode());
        assertTrue(g.dispatcher().silences().silenced(hot.labels(), Instant.ofEpochMilli(now.get())
                .plus(Duration.ofMinutes(61))).isEmpty(), "an hour later it no longer mutes");
    }

    /** A reading of card GPU-9 on node gpu-9 at {@code tempC}, through the gateway as a probe sends it. */
    private void reading(Gateway g, int seq, double tempC) throws Exception {
        await(g.onEventLoop(() -> {
            if (seq == 1) {
                g.hello(new Hello(1, "gpu-9", "b1", "test", null, null, Map.of(),
                        List.of(new CardInfo("GPU-9", 0, "H100", null, null, null, null, null))));
            }
            g.frame("gpu-9", new Sample(seq, now.get(), List.of(new CardReading("GPU-9",
                    MetricValues.builder().set(Metric.TEMP_C, tempC).build(), List.of()))));
            return null;
        }));
    }

    @Test
    void resolveAcknowledgesAndSilencesUntilTheAlertResolves(Vertx vertx) throws Exception {
        Gateway g = start(vertx);
        WebClient web = WebClient.create(vertx);
        reading(g, 1, 95);
        Alert hot = g.ledger().live().stream().filter(a -> "GPU-9".equals(a.labels().get("uuid"))).findFirst()
                .orElseThrow(() -> new AssertionError("no alert fired: " + g.ledger().live()));
        JsonObject answer = signedClick(web, g, "gpuwatch_resolve", hot.fingerprint(), now.get());
        JsonObject done = answer.getJsonArray("recorded").getJsonObject(0);
        assertTrue(done.getBoolean("acknowledged"));
        String id = done.getString("silence");
        assertEquals("slack", g.acknowledgements().of(hot.fingerprint()).orElseThrow().source());
        assertEquals(List.of(id), g.dispatcher().silences().silenced(hot.labels(), Instant.ofEpochMilli(now.get())));
        assertEquals(Instant.ofEpochMilli(now.get()).plus(Duration.ofHours(24)),
                g.dispatcher().silences().get(id).orElseThrow().endsAt(), "at most a day");

        now.addAndGet(1_000);
        JsonObject twice = signedClick(web, g, "gpuwatch_resolve", hot.fingerprint(), now.get());
        assertEquals("already marked resolved", twice.getJsonArray("skipped").getJsonObject(0).getString("reason"));

        // the condition clears: the silence ends with the episode, so the next one pages
        now.addAndGet(60_000);
        reading(g, 2, 40);
        await(((PersistentLedger) g.ledger()).settled());
        await(g.onEventLoop(() -> null));
        assertTrue(g.ledger().live().stream().noneMatch(a -> a.fingerprint().equals(hot.fingerprint())),
                "the alert resolved");
        assertTrue(g.dispatcher().silences().silenced(hot.labels(), Instant.ofEpochMilli(now.get())).isEmpty(),
                "the silence ended with the alert");
        List<JsonObject> ended = ChatHookGateway.audit(web, g, "silence.expire");
        assertEquals(1, ended.size());
        assertEquals("gateway", ended.get(0).getString("who"));
        assertEquals(id, ended.get(0).getString("target"));
    }
}
