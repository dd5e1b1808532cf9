package io.gpuwatch.cli.alerting;

import io.gpuwatch.gateway.escalation.StepMentions;
import io.gpuwatch.gateway.route.EscalationStep;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.schedule.RosterLoad;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.secret.SecretSource;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The receiver an escalation step pages through, made from the alerting file as the gateway makes it, posting to
 * a local stand-in for Slack's webhook: its message mentions the step's people, not the receiver's own
 * {@code mention:}, while the receiver as written keeps its own.
 */
@ExtendWith(VertxExtension.class)
class StepReceiversTest {
    private final List<String> posted = new CopyOnWriteArrayList<>();

    @Test
    void aStepsPageMentionsTheStepsPeopleOnTheReceiversChannel(Vertx vertx) throws Exception {
        int port = await(vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
            posted.add(b.toString());
            req.response().setStatusCode(200).end("ok");
        })).listen(0, "127.0.0.1")).actualPort();
        AlertingLoad load = AlertingFile.parse("alerting.yml", """
                receivers:
                  - name: chat
                    type: slack
                    url: {env: SLACK}
                    mention: [gpu-follow-the-sun/lead]
                escalation_policies:
                  - name: page
                    steps:
                      - people: [wei]
                        via: [chat]
                        timeout: 5m
                route:
                  receiver: chat
                  escalation: page
                """, SecretSource.ofEnv(Map.of("SLACK", "http://127.0.0.1:" + port + "/hook")), null);
        assertTrue(load.ok(), load.diagnostics().toString());
        RosterLoad rosterLoad = Roster.load(Path.of("../examples/oncall/oncall.yaml"));
        Roster roster = rosterLoad.roster();
        assertEquals(List.of(), load.escalationProblems(roster));
        Wiring wiring = new Wiring(vertx, WebClient.create(vertx), "http://localhost", System.out, () -> roster);
        EscalationStep step = load.routing().escalationPolicies().get("page").steps().get(0);
        Receiver paging = load.stepReceivers(wiring).make("chat",
                channel -> new StepMentions(() -> roster, step.targets(), channel, Instant::now)).orElseThrow();
        Notification n = new Notification("fp1", Notification.Status.FIRING, Map.of("alertname", "xid-79"),
                Map.of("summary", "GPU fell off the bus"), Instant.parse("2026-12-07T08:00:00Z"), null, "");
        await(paging.send(List.of(n)));
        assertEquals(1, posted.size());
        assertTrue(posted.get(0).contains("<@U024BE7LH>"), "wei's Slack id: " + posted.get(0));
        assertFalse(posted.get(0).contains("<@U0LEAD004>"), "not the receiver's own mention: " + posted.get(0));

        Receiver asWritten = load.create(wiring).get(0);
        await(asWritten.send(List.of(n)));
        assertTrue(posted.get(1).contains("<@U0LEAD004>"), "the receiver keeps its own mention: " + posted.get(1));
        assertTrue(load.stepReceivers(wiring).make("nobody", c -> List::of).isEmpty());
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
