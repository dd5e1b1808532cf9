package io.gpuwatch.offline.score;

import io.gpuwatch.rules.Severity;
import io.gpuwatch.rules.scope.ScopeKind;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScorerTest {
    private static final long T = 1_764_950_400_000L;

    /** A card incident on gpu-1's card GPU-a, run by task train-0 of business chat, at T+10 s. */
    private static Label cardIncident(String id, Severity expected, Severity... tolerated) {
        return new Label(id, Label.Kind.HARD, "xid-79", "device", ScopeKind.CARD, "gpu-1", "GPU-a", "train-0",
                "chat", null, T + 10_000, T + 70_000, 30_000, expected, List.of(tolerated), null);
    }

    private static Label lookalike(String id, Label.Must must) {
        return new Label(id, Label.Kind.LOOKALIKE, "power-cap", "device", ScopeKind.CARD, "gpu-2", "GPU-c", null,
                null, null, T, T + 300_000, 0, null, List.of(), must);
    }

    private static Fired card(String rule, Severity s, String node, String uuid, long at) {
        return new Fired(rule, s, null, ScopeKind.CARD, Map.of("node", node, "uuid", uuid), at);
    }

    private static Fired fired(String rule, Severity s, ScopeKind scope, Map<String, String> labels, long at) {
        return new Fired(rule, s, null, scope, labels, at);
    }

    private static Score one(List<Label> labels, List<Fired> fired) {
        return Scorer.score(List.of(new Scorer.Trace("t.trace", labels, fired)));
    }

    @Test
    void aNodeAlertCoversTheCardsOfItsNodeButACardAlertOnlyItsOwnCard() {
        Label l = cardIncident("bus", Severity.PAGE);
        assertTrue(fired("burst", Severity.PAGE, ScopeKind.NODE, Map.of("node", "gpu-1"), T + 12_000).covers(l));
        assertFalse(fired("burst", Severity.PAGE, ScopeKind.NODE, Map.of("node", "gpu-2"), T + 12_000).covers(l));
        assertTrue(card("bus", Severity.PAGE, "gpu-1", "GPU-a", T + 12_000).covers(l));
        assertFalse(card("bus", Severity.PAGE, "gpu-1", "GPU-b", T + 12_000).covers(l));
        Label node = new Label("silent", Label.Kind.HARD, "node-silent", "device", ScopeKind.NODE, "gpu-1", null,
                null, null, null, T, T + 60_000, 60_000, Severity.PAGE, List.of(), null);
        assertFalse(card("bus", Severity.PAGE, "gpu-1", "GPU-a", T + 12_000).covers(node),
                "a card alert says nothing about its whole node");
    }

    @Test
    void aTaskAlertCoversItsCardsAndABusinessAlertItsTasks() {
        Label l = cardIncident("bus", Severity.PAGE);
        assertTrue(fired("slow", Severity.TICKET, ScopeKind.TASK, Map.of("task", "train-0"), T + 12_000).covers(l));
        assertFalse(fired("slow", Severity.TICKET, ScopeKind.TASK, Map.of("task", "train-1"), T + 12_000).covers(l));
        assertTrue(fired("cost", Severity.INSPECT, ScopeKind.BUSINESS, Map.of("business", "chat"), T + 12_000)
                .covers(l));
        Label task = new Label("straggler", Label.Kind.COMPOSITE, "straggler", "application", ScopeKind.TASK, null,
                null, "train-0", "chat", null, T, T + 600_000, 300_000, Severity.NOTICE, List.of(), null);
        assertTrue(fired("cost", Severity.INSPECT, ScopeKind.BUSINESS, Map.of("business", "chat"), T).covers(task));
        assertFalse(fired("burst", Severity.PAGE, ScopeKind.NODE, Map.of("node", "gpu-1"), T).covers(task));
        Label queue = new Label("wait", Label.Kind.COMPOSITE, "queue-wait", "scheduling", ScopeKind.QUEUE, null,
                null, null, null, "batch", T, T + 600_000, 300_000, Severity.TICKET, List.of(), null);
        assertTrue(fired("wait", Severity.TICKET, ScopeKind.QUEUE, Map.of("queue", "batch"), T + 1).covers(queue));
        assertFalse(fired("wait", Severity.TICKET, ScopeKind.QUEUE, Map.of("queue", "gpu"), T + 1).covers(queue));
    }

    @Test
    void aReplicaAlertCoversItsTasksIncidentOnItsNodeAndTheCardsThere() {
        Map<String, String> replica = Map.of("task", "train-0", "node", "gpu-1", "business", "chat");
        Label card = cardIncident("bus", Severity.PAGE);
        assertTrue(fired("stuck", Severity.PAGE, ScopeKind.REPLICA, replica, T + 12_000).covers(card));
        assertFalse(fired("stuck", Severity.PAGE, ScopeKind.REPLICA, Map.of("task", "train-0", "node", "gpu-2"),
                T + 12_000).covers(card), "another node's replica");
        assertFalse(fired("stuck", Severity.PAGE, ScopeKind.REPLICA, Map.of("task", "train-1", "node", "gpu-1"),
                T + 12_000).covers(card), "another task's replica on the same node");
        Label onNode = new Label("collapse", Label.Kind.COMPOSITE, "tokens-collapse", "application", ScopeKind.TASK,
                "gpu-1", "GPU-a", "train-0", "chat", null, T, T + 600_000, 300_000, Severity.PAGE, List.of(), null);
        assertTrue(fired("stuck", Severity.PAGE, ScopeKind.REPLICA, replica, T + 1).covers(onNode),
                "the task's incident placed on the replica's node");
        Label whole = new Label("collapse", Label.Kind.COMPOSITE, "tokens-collapse", "application", ScopeKind.TASK,
                null, null, "train-0", "chat", null, T, T + 600_000, 300_000, Severity.PAGE, List.of(), null);
        assertFalse(fired("stuck", Severity.PAGE, ScopeKind.REPLICA, replica, T + 1).covers(whole),
                "one replica says nothing of the whole task");
        Label node = new Label("silent", Label.Kind.HARD, "node-silent", "device", ScopeKind.NODE, "gpu-1", null,
                null, null, null, T, T + 60_000, 60_000, Severity.PAGE, List.of(), null);
        assertFalse(fired("stuck", Severity.PAGE, ScopeKind.REPLICA, replica, T + 1).covers(node));
    }

    @Test
    void notificationsOutsideTheSpanAreFalseAndDetectNothing() {
        Label l = cardIncident("bus", Severity.PAGE);
        Score s = one(List.of(l), List.of(
                card("bus", Severity.PAGE, "gpu-1", "GPU-a", T + 9_999),
                card("bus", Severity.PAGE, "gpu-1", "GPU-a", T + 70_001)));
        assertEquals(new Score.Ratio(0, 1), s.hardOnTime());
        assertEquals(new Score.Ratio(0, 2), s.notificationPrecision());
        assertEquals(new Score.Ratio(0, 2), s.pagePrecision());
        assertEquals(Score.Verdict.MISSED, s.items().get(0).verdict());
        assertNull(s.delayMedianMs());
        assertEquals(List.of(new Score.RuleRow("bus", 2, 0)), s.rules());
    }

    @Test
    void aCoveringNotificationAfterWithinIsLateButStillTrueAndTimed() {
        Score s = one(List.of(cardIncident("bus", Severity.PAGE)),
                List.of(card("bus", Severity.PAGE, "gpu-1", "GPU-a", T + 50_000)));
        assertEquals(Score.Verdict.LATE, s.items().get(0).verdict());
        assertEquals(new Score.Ratio(0, 1), s.hardOnTime());
        assertEquals(new Score.Ratio(0, 0), s.severityRight());
        assertEquals(new Score.Ratio(1, 1), s.notificationPrecision());
        assertEquals(40_000L, s.delayMaxMs());
    }

    @Test
    void theMostSevereCoveringNotificationDecidesTheSeverityAndToleratedOnesPass() {
        Label strict = cardIncident("strict", Severity.TICKET);
        Label lenient = new Label("lenient", Label.Kind.COMPOSITE, "hot", "device", ScopeKind.CARD, "gpu-1", "GPU-b",
                null, null, null, T, T + 600_000, 300_000, Severity.TICKET, List.of(Severity.PAGE), null);
        Score s = one(List.of(strict, lenient), List.of(
                card("warm", Severity.TICKET, "gpu-1", "GPU-a", T + 11_000),
                card("burn", Severity.PAGE, "gpu-1", "GPU-a", T + 60_000),
                card("burn", Severity.PAGE, "gpu-1", "GPU-b", T + 1_000)));
        assertEquals(Score.Verdict.WRONG_SEVERITY, s.items().get(0).verdict());
        assertEquals(Severity.PAGE, s.items().get(0).got());
        assertEquals(1_000L, s.items().get(0).delayMs());
        assertEquals(Score.Verdict.OK, s.items().get(1).verdict());
        assertEquals(new Score.Ratio(1, 2), s.severityRight());
        assertEquals(new Score.Ratio(1, 1), s.hardOnTime());
        assertEquals(new Score.Ratio(1, 1), s.compositeOnTime());
    }

    @Test
    void pagesPerPagedIncidentCountsEveryPageOnAnIncidentOverTheIncidentsThatPaged() {
        Label storm = new Label("storm", Label.Kind.HARD, "xid-storm", "device", ScopeKind.NODE, "gpu-1", null,
                null, null, null, T, T + 120_000, 30_000, Severity.PAGE, List.of(), null);
        Label other = new Label("other", Label.Kind.HARD, "xid-79", "device", ScopeKind.CARD, "gpu-3", "GPU-z",
                null, null, null, T, T + 120_000, 30_000, Severity.PAGE, List.of(), null);
        Label quiet = new Label("quiet", Label.Kind.HARD, "xid-48", "device", ScopeKind.CARD, "gpu-4", "GPU-q",
                null, null, null, T, T + 120_000, 30_000, Severity.TICKET, List.of(), null);
        Score s = one(List.of(storm, other, quiet), List.of(
                fired("burst", Severity.PAGE, ScopeKind.NODE, Map.of("node", "gpu-1"), T + 1_000),
                card("bus", Severity.PAGE, "gpu-1", "GPU-a", T + 1_000),
                card("bus", Severity.PAGE, "gpu-1", "GPU-b", T + 1_000),
                card("bus", Severity.PAGE, "gpu-3", "GPU-z", T + 2_000),
                card("ecc", Severity.TICKET, "gpu-4", "GPU-q", T + 3_000),
                card("bus", Severity.PAGE, "gpu-9", "GPU-x", T + 3_000)));
        // the storm's node page covers it; its two card pages cover nothing labelled (a node label is not a card)
        assertEquals(new Score.Ratio(2, 2), s.pagesPerPagedIncident());
        assertEquals(new Score.Ratio(2, 5), s.pagePrecision());
        assertEquals(new Score.Ratio(3, 6), s.notificationPrecision());
        assertEquals(new Score.Ratio(3, 3), s.hardOnTime());
        assertEquals(2_000L, s.delayMedianMs());
        assertEquals(3_000L, s.delayMaxMs());
    }

    @Test
    void lookAlikesThatPageOrNotifyAreCountedAndTheirNotificationsAreFalse() {
        Label notPage = lookalike("cap", Label.Must.NOT_PAGE);
        Label notNotify = new Label("hot", Label.Kind.LOOKALIKE, "hot-card", "device", ScopeKind.CARD, "gpu-2",
                "GPU-d", null, null, null, T, T + 300_000, 0, null, List.of(), Label.Must.NOT_NOTIFY);
        Label silent = new Label("ckpt", Label.Kind.LOOKALIKE, "checkpoint", "device", ScopeKind.NODE, "gpu-5",
                null, null, null, null, T, T + 300_000, 0, null, List.of(), Label.Must.NOT_NOTIFY);
        Score s = one(List.of(notPage, notNotify, silent), List.of(
                card("cap", Severity.TICKET, "gpu-2", "GPU-c", T + 1_000),
                card("hot", Severity.NOTICE, "gpu-2", "GPU-d", T + 1_000)));
        assertEquals(List.of(Score.Verdict.QUIET, Score.Verdict.NOTIFIED, Score.Verdict.QUIET),
                s.items().stream().map(Score.Item::verdict).toList());
        assertEquals(new Score.Ratio(0, 3), s.lookalikesPaged());
        assertEquals(new Score.Ratio(1, 2), s.lookalikesNotified());
        assertEquals(new Score.Ratio(0, 2), s.notificationPrecision());
        Score paged = one(List.of(notPage), List.of(card("cap", Severity.PAGE, "gpu-2", "GPU-c", T)));
        assertEquals(new Score.Ratio(1, 1), paged.lookalikesPaged());
        assertEquals(Score.Verdict.PAGED, paged.items().get(0).verdict());
    }

    @Test
    void tracesArePooledButANotificationOnlyCoversTheLabelsOfItsOwnTrace() {
        Label l = cardIncident("bus", Severity.PAGE);
        Fired f = card("bus", Severity.PAGE, "gpu-1", "GPU-a", T + 12_000);
        Score s = Scorer.score(List.of(new Scorer.Trace("a", List.of(l), List.of()),
                new Scorer.Trace("b", List.of(l), List.of(f)),
                new Scorer.Trace("c", List.of(), List.of(f))));
        assertEquals(new Score.Ratio(1, 2), s.hardOnTime());
        assertEquals(new Score.Ratio(1, 2), s.notificationPrecision());
        assertEquals(List.of(new Score.TraceRow("a", 1, 0, 0, 0, 0, 0), new Score.TraceRow("b", 1, 1, 0, 0, 1, 1),
                new Score.TraceRow("c", 0, 0, 0, 0, 1, 0)), s.traces());
    }
}
