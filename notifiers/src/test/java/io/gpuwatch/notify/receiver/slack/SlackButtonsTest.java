package io.gpuwatch.notify.receiver.slack;

import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.FakeChat;
import io.gpuwatch.notify.receiver.chat.FakeTime;
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

import static io.gpuwatch.notify.receiver.chat.Alerts.HOT_RESOLVED;
import static io.gpuwatch.notify.receiver.chat.Alerts.NOW;
import static io.gpuwatch.notify.receiver.chat.Alerts.XID_1;
import static io.gpuwatch.notify.receiver.chat.Alerts.flood;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Acknowledge, Resolve and Silence 1h buttons of a Slack receiver whose clicks the gateway takes: firing alerts only, within limits. */
@ExtendWith(VertxExtension.class)
class SlackButtonsTest {
    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static List<JsonObject> sent(Vertx vertx, boolean buttons, List<List<io.gpuwatch.notify.Notification>>
            batches) throws Exception {
        FakeChat chat = FakeChat.answering(200, "ok");
        await(chat.start(vertx));
        Parsed<SlackConfig> parsed = SlackConfig.parse(Map.of("url", Map.of("env", "URL")), "receivers.s",
                SecretSource.ofEnv(Map.of("URL", chat.url("/services/T1/B1/X1"))));
        assertTrue(parsed.ok(), parsed.problems().toString());
        FakeTime time = new FakeTime(NOW);
        SlackReceiver slack = new SlackReceiver("s", parsed.value(), time.sending(WebClient.create(vertx)),
                OnCall.NOBODY, buttons);
        for (List<io.gpuwatch.notify.Notification> batch : batches) {
            await(slack.send(batch));
        }
        return chat.received.stream().map(FakeChat.Received::json).toList();
    }

    private static JsonObject last(JsonObject body) {
        JsonArray blocks = body.getJsonArray("blocks");
        return blocks.getJsonObject(blocks.size() - 1);
    }

    @Test
    void aFiringMessageCarriesAnAcknowledgeButtonForItsFiringAlerts(Vertx vertx) throws Exception {
        List<JsonObject> bodies = sent(vertx, true, List.of(List.of(XID_1, HOT_RESOLVED), List.of(HOT_RESOLVED)));
        JsonObject actions = last(bodies.get(0));
        assertEquals("actions", actions.getString("type"));
        JsonArray buttons = actions.getJsonArray("elements");
        assertEquals(3, buttons.size());
        List<String> ids = List.of("gpuwatch_ack", "gpuwatch_resolve", "gpuwatch_silence");
        List<String> labels = List.of("Acknowledge", "Resolve", "Silence 1h");
        for (int i = 0; i < 3; i++) {
            JsonObject button = buttons.getJsonObject(i);
            assertEquals(ids.get(i), button.getString("action_id"));
            assertEquals(labels.get(i), button.getJsonObject("text").getString("text"));
            assertEquals(XID_1.fingerprint(), button.getString("value"), "the resolved alert is not in it");
        }
        assertEquals("primary", buttons.getJsonObject(0).getString("style"), "acknowledging is the usual answer");
        assertFalse(bodies.get(1).encode().contains("actions"), "nothing to acknowledge once resolved");
        assertFalse(sent(vertx, false, List.of(List.of(XID_1))).get(0).encode().contains("\"actions\""),
                "no button without webhookSecret");
    }

    @Test
    void aFloodsButtonKeepsWholeFingerprintsWithinSlacksValueLimit(Vertx vertx) throws Exception {
        String value = last(sent(vertx, true, List.of(flood(400))).get(0)).getJsonArray("elements")
                .getJsonObject(0).getString("value");
        assertTrue(value.length() <= 2000, "Slack refuses a longer value: " + value.length());
        for (String f : value.split(",")) {
            assertEquals(16, f.length(), f);
        }
    }
}
