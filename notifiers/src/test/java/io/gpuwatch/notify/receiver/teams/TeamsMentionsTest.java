package io.gpuwatch.notify.receiver.teams;

import io.gpuwatch.notify.Notification;
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
import java.util.concurrent.atomic.AtomicReference;

import static io.gpuwatch.notify.receiver.chat.Alerts.HOT_RESOLVED;
import static io.gpuwatch.notify.receiver.chat.Alerts.NOW;
import static io.gpuwatch.notify.receiver.chat.Alerts.XID_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Teams card mentions the on-call people as Teams documents it for Adaptive Cards: {@code <at>name</at>} in a
 * TextBlock and a {@code msteams.entities} mention with the person's UPN (or Entra object id), the two texts
 * identical; the card stays valid Adaptive Card 1.5, and a resolution mentions nobody.
 */
@ExtendWith(VertxExtension.class)
class TeamsMentionsTest {
    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aFiringCardMentionsTheOnCallPeopleByUpnWithTheirNames(Vertx vertx) throws Exception {
        AtomicReference<List<OnCall.Named>> onCall = new AtomicReference<>(List.of(
                new OnCall.Named("wei@example.com", "Wei Zhang"),
                new OnCall.Named("87d349ed-44d7-43e1-9a83-5f2406dee5bd", "Ana <b>Souza</b>")));
        OnCall lookup = new OnCall() {
            @Override
            public List<String> addresses() {
                return onCall.get().stream().map(OnCall.Named::address).toList();
            }

            @Override
            public List<Named> named() {
                return onCall.get();
            }
        };
        FakeChat chat = FakeChat.answering(202, "");
        await(chat.start(vertx));
        Parsed<TeamsConfig> parsed = TeamsConfig.parse(Map.of("url", Map.of("env", "URL")), "receivers.t",
                SecretSource.ofEnv(Map.of("URL", chat.url("/workflows/0a1b2c/triggers/manual/paths/invoke?sig=S"))));
        assertTrue(parsed.ok(), parsed.problems().toString());
        FakeTime time = new FakeTime(NOW);
        TeamsReceiver teams = new TeamsReceiver("t", parsed.value(), time.sending(WebClient.create(vertx)), lookup);
        await(teams.send(List.of(XID_1)));
        onCall.set(List.of(new OnCall.Named("lin@example.com", "Lin Chen")));
        await(teams.send(List.<Notification>of(HOT_RESOLVED)));

        JsonObject card = chat.received.get(0).json().getJsonArray("attachments").getJsonObject(0)
                .getJsonObject("content");
        JsonArray body = card.getJsonArray("body");
        String text = body.getJsonObject(body.size() - 1).getString("text");
        assertEquals("On call: <at>Wei Zhang</at> <at>Ana  b Souza /b</at>", text,
                "markup in a name is blanked, so the tag stays one plain name");
        JsonArray entities = card.getJsonObject("msteams").getJsonArray("entities");
        assertEquals(new JsonObject().put("type", "mention").put("text", "<at>Wei Zhang</at>")
                .put("mentioned", new JsonObject().put("id", "wei@example.com").put("name", "Wei Zhang")),
                entities.getJsonObject(0));
        assertEquals("87d349ed-44d7-43e1-9a83-5f2406dee5bd", entities.getJsonObject(1).getJsonObject("mentioned")
                .getString("id"));
        for (Object e : entities) {
            assertTrue(text.contains(((JsonObject) e).getString("text")), "each entity's text is in the card");
        }
        assertEquals("full", card.getJsonObject("msteams").getString("width"));
        JsonObject schemaPart = card.copy();
        schemaPart.remove("msteams");
        assertTrue(AdaptiveCardSchema.problems(schemaPart).isEmpty(), AdaptiveCardSchema.problems(schemaPart)
                .toString());

        assertFalse(chat.received.get(1).body().contains("<at>"), "no mention for a resolution");
        assertFalse(chat.received.get(1).json().getJsonArray("attachments").getJsonObject(0)
                .getJsonObject("content").getJsonObject("msteams").containsKey("entities"));
    }
}
