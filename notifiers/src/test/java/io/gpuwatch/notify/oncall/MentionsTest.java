package io.gpuwatch.notify.oncall;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.receiver.chat.FakeChat;
import io.gpuwatch.notify.receiver.chat.FakeTime;
import io.gpuwatch.notify.receiver.dingtalk.DingTalkConfig;
import io.gpuwatch.notify.receiver.dingtalk.DingTalkReceiver;
import io.gpuwatch.notify.receiver.feishu.FeishuConfig;
import io.gpuwatch.notify.receiver.feishu.FeishuReceiver;
import io.gpuwatch.notify.receiver.slack.SlackConfig;
import io.gpuwatch.notify.receiver.slack.SlackReceiver;
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

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static io.gpuwatch.notify.receiver.chat.Alerts.HOT_RESOLVED;
import static io.gpuwatch.notify.receiver.chat.Alerts.NOW;
import static io.gpuwatch.notify.receiver.chat.Alerts.XID_1;
import static io.gpuwatch.notify.receiver.chat.Alerts.flood;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each chat platform's message mentions whoever {@link OnCall} names at the moment of sending, in that platform's
 * syntax, and only while something fires: a resolution rings no phone.
 */
@ExtendWith(VertxExtension.class)
class MentionsTest {
    private final AtomicReference<List<String>> onCall = new AtomicReference<>(List.of());
    private final OnCall lookup = () -> onCall.get();
    private final FakeTime time = new FakeTime(NOW);

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** The bodies one receiver posted for a firing batch and then a resolved-only one. */
    private List<JsonObject> sent(Vertx vertx, String okBody, String hook, Function<String, Receiver> make)
            throws Exception {
        FakeChat chat = FakeChat.answering(200, okBody);
        await(chat.start(vertx));
        Receiver receiver = make.apply(chat.url(hook));
        await(receiver.send(List.of(XID_1)));
        await(receiver.send(List.<Notification>of(HOT_RESOLVED)));
        List<JsonObject> out = new ArrayList<>();
        chat.received.forEach(r -> out.add(r.json()));
        return out;
    }

    private static <C> C parsed(Parsed<C> p) {
        assertTrue(p.ok(), p.problems().toString());
        return p.value();
    }

    private static SecretSource url(String url) {
        return SecretSource.ofEnv(Map.of("URL", url));
    }

    @Test
    void slackMentionsTheMemberIdsInASectionOfTheirOwn(Vertx vertx) throws Exception {
        onCall.set(List.of("U024BE7LH", "U0G9QF9C6"));
        List<JsonObject> bodies = sent(vertx, "ok", "/services/T1/B1/X1", url -> new SlackReceiver("s", parsed(SlackConfig.parse(
                Map.of("url", Map.of("env", "URL")), "receivers.s", url(url))), time.sending(WebClient.create(vertx)),
                lookup, false));
        JsonArray blocks = bodies.get(0).getJsonArray("blocks");
        assertEquals(new JsonObject().put("type", "section").put("text", new JsonObject().put("type", "mrkdwn")
                .put("text", "On call: <@U024BE7LH> <@U0G9QF9C6>")), blocks.getJsonObject(blocks.size() - 1));
        assertFalse(bodies.get(1).encode().contains("<@U"), "no mention for a resolution: " + bodies.get(1));
    }

    @Test
    void feishuMentionsTheOpenIdInTheCardsMarkdown(Vertx vertx) throws Exception {
        onCall.set(List.of("ou_7d8a6e6df7621556ce0d21922b676706"));
        List<JsonObject> bodies = sent(vertx, "{\"code\":0,\"msg\":\"success\"}", "/open-apis/bot/v2/hook/t", url -> new FeishuReceiver("f",
                parsed(FeishuConfig.parse(Map.of("url", Map.of("env", "URL")), "receivers.f", url(url))),
                time.sending(WebClient.create(vertx)), lookup, null, false));
        JsonArray elements = bodies.get(0).getJsonObject("card").getJsonArray("elements");
        assertEquals(new JsonObject().put("tag", "div").put("text", new JsonObject().put("tag", "lark_md")
                        .put("content", "On call: <at id=ou_7d8a6e6df7621556ce0d21922b676706></at>")),
                elements.getJsonObject(elements.size() - 1));
        assertFalse(bodies.get(1).encode().contains("<at "), bodies.get(1).encode());
    }

    @Test
    void dingTalkPutsTheMobileBothInTheTextAndInAtMobiles(Vertx vertx) throws Exception {
        onCall.set(List.of("13800000001"));
        List<JsonObject> bodies = sent(vertx, "{\"errcode\":0,\"errmsg\":\"ok\"}", "/robot/send?access_token=t",
                url -> new DingTalkReceiver("d",
                parsed(DingTalkConfig.parse(Map.of("url", Map.of("env", "URL")), "receivers.d", url(url))),
                time.sending(WebClient.create(vertx)), lookup, null));
        JsonObject firing = bodies.get(0);
        assertTrue(firing.getJsonObject("markdown").getString("text").endsWith("\n\nOn call: @13800000001"),
                firing.encode());
        assertEquals(new JsonObject().put("atMobiles", new JsonArray().add("13800000001")).put("isAtAll", false),
                firing.getJsonObject("at"));
        assertFalse(bodies.get(1).containsKey("at"), bodies.get(1).encode());
    }

    @Test
    void weComMentionsTheUseridAfterTheEntriesAndKeepsItWhenTheEntriesAreCut(Vertx vertx) throws Exception {
        onCall.set(List.of("linchen"));
        Function<String, Receiver> make = url -> new WeComReceiver("w", parsed(WeComConfig.parse(Map.of("url",
                Map.of("env", "URL")), "receivers.w", url(url))), time.sending(WebClient.create(vertx)), lookup, null);
        List<JsonObject> bodies = sent(vertx, "{\"errcode\":0,\"errmsg\":\"ok\"}", "/cgi-bin/webhook/send?key=k", make);
        assertTrue(bodies.get(0).getJsonObject("markdown").getString("content").endsWith("\nOn call: <@linchen>"),
                bodies.get(0).encode());
        assertFalse(bodies.get(1).encode().contains("<@"), bodies.get(1).encode());

        FakeChat chat = FakeChat.answering(200, "{\"errcode\":0,\"errmsg\":\"ok\"}");
        await(chat.start(vertx));
        await(make.apply(chat.url("/cgi-bin/webhook/send?key=k")).send(flood(300)));
        String content = chat.received.get(0).json().getJsonObject("markdown").getString("content");
        assertTrue(content.getBytes(StandardCharsets.UTF_8).length <= 4096, "within WeCom's limit");
        assertTrue(content.endsWith("\nOn call: <@linchen>"), "the mention survives the cut");
    }

    @Test
    void theLookupIsAskedAtEachSendSoAHandOffChangesWhoIsMentioned(Vertx vertx) throws Exception {
        FakeChat chat = FakeChat.answering(200, "ok");
        await(chat.start(vertx));
        Receiver slack = new SlackReceiver("s", parsed(SlackConfig.parse(Map.of("url", Map.of("env", "URL")),
                "receivers.s", url(chat.url("/hook")))), time.sending(WebClient.create(vertx)), lookup, false);
        onCall.set(List.of("U0WEI0001"));
        await(slack.send(List.of(XID_1)));
        onCall.set(List.of("U0LIN0002"));
        await(slack.send(List.of(XID_1)));
        assertTrue(chat.received.get(0).body().contains("<@U0WEI0001>"));
        assertTrue(chat.received.get(1).body().contains("<@U0LIN0002>"));
        assertFalse(chat.received.get(1).body().contains("U0WEI0001"));
    }
}
