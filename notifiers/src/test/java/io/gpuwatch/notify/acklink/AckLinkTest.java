package io.gpuwatch.notify.acklink;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.FakeChat;
import io.gpuwatch.notify.receiver.chat.FakeTime;
import io.gpuwatch.notify.receiver.dingtalk.DingTalkConfig;
import io.gpuwatch.notify.receiver.dingtalk.DingTalkReceiver;
import io.gpuwatch.notify.receiver.feishu.FeishuConfig;
import io.gpuwatch.notify.receiver.feishu.FeishuReceiver;
import io.gpuwatch.notify.receiver.wecom.WeComConfig;
import io.gpuwatch.notify.receiver.wecom.WeComReceiver;
import io.gpuwatch.notify.secret.SecretSource;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static io.gpuwatch.notify.receiver.chat.Alerts.HOT_RESOLVED;
import static io.gpuwatch.notify.receiver.chat.Alerts.NOW;
import static io.gpuwatch.notify.receiver.chat.Alerts.XID_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The signed acknowledge link: its signature, and where Feishu, DingTalk and WeCom messages carry it. */
@ExtendWith(VertxExtension.class)
class AckLinkTest {
    private static final AckLink LINK = new AckLink("https://gpuwatch.example.com", "gpu-feishu", "s3cret",
            AckLink.DEFAULT_TTL);
    private static final String EXPECTED = LINK.url(List.of(XID_1.fingerprint()), NOW);
    private final FakeTime time = new FakeTime(NOW);

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void theSignatureCoversReceiverAlertsAndExpiry() {
        long exp = NOW.plus(AckLink.DEFAULT_TTL).getEpochSecond();
        String f = XID_1.fingerprint();
        assertEquals("https://gpuwatch.example.com/api/v1/receivers/gpu-feishu/ack-link?f=" + f + "&exp=" + exp
                + "&sig=" + AckLink.signature("s3cret", "gpu-feishu", f, exp), EXPECTED);
        String sig = EXPECTED.substring(EXPECTED.indexOf("&sig=") + 5);
        assertTrue(AckLink.valid("s3cret", "gpu-feishu", f, exp, sig));
        assertFalse(AckLink.valid("s3cret", "gpu-dingtalk", f, exp, sig), "another receiver");
        assertFalse(AckLink.valid("s3cret", "gpu-feishu", f + ",00", exp, sig), "another alert");
        assertFalse(AckLink.valid("s3cret", "gpu-feishu", f, exp + 1, sig), "a later expiry");
        assertFalse(AckLink.valid("other", "gpu-feishu", f, exp, sig), "another secret");
        assertFalse(AckLink.valid("s3cret", "gpu-feishu", f, exp, null));
    }

    private List<JsonObject> sent(Vertx vertx, String ok, String hook, Function<String, Receiver> make)
            throws Exception {
        FakeChat chat = FakeChat.answering(200, ok);
        await(chat.start(vertx));
        Receiver r = make.apply(chat.url(hook));
        await(r.send(List.of(XID_1)));
        await(r.send(List.<Notification>of(HOT_RESOLVED)));
        return chat.received.stream().map(FakeChat.Received::json).toList();
    }

    private static SecretSource url(String url) {
        return SecretSource.ofEnv(Map.of("URL", url));
    }

    private static <C> C parsed(Parsed<C> p) {
        assertTrue(p.ok(), p.problems().toString());
        return p.value();
    }

    @Test
    void feishuCarriesItAsACardButton(Vertx vertx) throws Exception {
        List<JsonObject> bodies = sent(vertx, "{\"code\":0}", "/open-apis/bot/v2/hook/t", u -> new FeishuReceiver(
                "gpu-feishu", parsed(FeishuConfig.parse(Map.of("url", Map.of("env", "URL")), "r", url(u))),
                time.sending(WebClient.create(vertx)), OnCall.NOBODY, LINK, false));
        JsonArray elements = bodies.get(0).getJsonObject("card").getJsonArray("elements");
        JsonObject button = elements.getJsonObject(elements.size() - 1).getJsonArray("actions").getJsonObject(0);
        assertEquals(EXPECTED, button.getString("url"));
        assertEquals("Acknowledge", button.getJsonObject("text").getString("content"));
        assertFalse(bodies.get(1).encode().contains("ack-link"), "nothing to acknowledge once resolved");
    }

    @Test
    void dingTalkAndWeComCarryItAsAMarkdownLink(Vertx vertx) throws Exception {
        String ok = "{\"errcode\":0,\"errmsg\":\"ok\"}";
        List<JsonObject> ding = sent(vertx, ok, "/robot/send?access_token=t", u -> new DingTalkReceiver(
                "gpu-feishu", parsed(DingTalkConfig.parse(Map.of("url", Map.of("env", "URL")), "r", url(u))),
                time.sending(WebClient.create(vertx)), () -> List.of("13800000001"), LINK));
        assertTrue(ding.get(0).getJsonObject("markdown").getString("text")
                .endsWith("\n\n[Acknowledge](" + EXPECTED + ")\n\nOn call: @13800000001"), ding.get(0).encode());
        assertFalse(ding.get(1).encode().contains("ack-link"));
        // a clock of its own: the DingTalk receiver's pacing moved the shared one on
        FakeTime fresh = new FakeTime(NOW);
        List<JsonObject> wecom = sent(vertx, ok, "/cgi-bin/webhook/send?key=k", u -> new WeComReceiver(
                "gpu-feishu", parsed(WeComConfig.parse(Map.of("url", Map.of("env", "URL")), "r", url(u))),
                fresh.sending(WebClient.create(vertx)), OnCall.NOBODY, LINK));
        assertTrue(wecom.get(0).getJsonObject("markdown").getString("content")
                .endsWith("\n[Acknowledge](" + EXPECTED + ")"), wecom.get(0).encode());
        assertFalse(wecom.get(1).encode().contains("ack-link"));
    }
}
