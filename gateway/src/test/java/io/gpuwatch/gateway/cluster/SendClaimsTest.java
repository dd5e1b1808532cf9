package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.delivery.RecordingReceiver;
import io.gpuwatch.gateway.delivery.Delivery;
import io.gpuwatch.gateway.group.Flush;
import io.gpuwatch.notify.Notification;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.shareddata.AsyncMap;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two gateways sharing one claim map (a local one stands in for Hazelcast's): each change of an alert is sent
 * by one of them, and a group only a peer's node is in is never sent here.
 */
@ExtendWith(VertxExtension.class)
class SendClaimsTest {
    private static final Instant START = Instant.parse("2026-12-03T10:00:00Z");

    private SendClaims claims;
    private AsyncMap<String, String> alertMap;
    private AsyncMap<String, String> holderMap;
    private Set<String> live = Set.of("g1", "g2");
    private final RecordingReceiver hook = new RecordingReceiver("hook");
    private final List<List<Notification>> sent = hook.batches();

    @BeforeEach
    void maps(Vertx vertx) throws Exception {
        claims = new SendClaims(await(vertx.sharedData().<String, String>getAsyncMap(SendClaims.MAP)));
        alertMap = await(vertx.sharedData().getAsyncMap(SharedAlerts.MAP));
        holderMap = await(vertx.sharedData().getAsyncMap(SharedHolders.MAP));
    }

    /** Gateway {@code member}'s claimed delivery, speaking for what {@code speaksFor} says. */
    private ClaimedDelivery gateway(String member, Predicate<Notification> speaksFor) {
        return new ClaimedDelivery(claims, Delivery.DIRECT, speaksFor, new SharedHolders(holderMap, member),
                () -> live);
    }

    /** An alert of a task: no node, so every gateway holding one of its cards evaluates it. */
    private static Notification task(String fp, Notification.Status status) {
        return new Notification(fp, status, Map.of("alertname", "xid-application-fault", "task", "train-1"),
                Map.of(), START, status == Notification.Status.RESOLVED ? START.plusSeconds(60) : null, "");
    }

    private static Notification firing(String fp, String node) {
        return new Notification(fp, Notification.Status.FIRING, Map.of("alertname", "xid-fallen-off-bus", "node", node,
                "uuid", "GPU-1"), Map.of("summary", "GPU fell off the bus"), START, null, "");
    }

    private static Notification resolved(String fp, String node) {
        return new Notification(fp, Notification.Status.RESOLVED, Map.of("alertname", "xid-fallen-off-bus",
                "node", node, "uuid", "GPU-1"), Map.of(), START, START.plusSeconds(120), "");
    }

    private static Flush flush(Flush.Reason reason, Notification... alerts) {
        return new Flush(null, "hook", "{}:{}", Map.of(), List.of(alerts), reason, START);
    }

    @Test
    void eachChangeIsClaimedOnceAndAnAlertFiringAgainIsNews() throws Exception {
        assertTrue(await(claims.claim("hook", firing("f1", "gpu-0"))), "first firing");
        assertFalse(await(claims.claim("hook", firing("f1", "gpu-0"))), "the same firing, seen by a peer");
        assertTrue(await(claims.claim("pager", firing("f1", "gpu-0"))), "another receiver has its own claim");
        assertTrue(await(claims.claim("hook", resolved("f1", "gpu-0"))), "its resolution");
        assertFalse(await(claims.claim("hook", resolved("f1", "gpu-0"))), "the same resolution again");
        assertTrue(await(claims.claim("hook", firing("f1", "gpu-0"))), "a new episode");
        assertFalse(await(claims.claim("hook", resolved("f2", "gpu-0"))), "a resolution of what was never sent");
    }

    @Test
    void aGroupAPeerSentAlreadyIsDroppedAndOneWithNewsGoesWhole() throws Exception {
        Delivery old = gateway("g1", n -> true);
        Delivery next = gateway("g2", n -> true);
        await(old.deliver(hook, flush(Flush.Reason.FIRST, firing("f1", "gpu-0"))));
        await(next.deliver(hook, flush(Flush.Reason.FIRST, firing("f1", "gpu-0"))));
        assertEquals(1, sent.size(), "the page after a failover is not sent twice");

        await(next.deliver(hook, flush(Flush.Reason.NEW_ALERTS, firing("f1", "gpu-0"), firing("f2", "gpu-0"))));
        assertEquals(2, sent.size());
        assertEquals(2, sent.get(1).size(), "the group goes with the alert it had already told of");
    }

    @Test
    void aGatewayStaysQuietAboutNodesItDoesNotOwnEvenOnARepeat() throws Exception {
        Delivery stale = gateway("g1", n -> !"gpu-7".equals(n.labels().get("node")));
        await(stale.deliver(hook, flush(Flush.Reason.FIRST, firing("f7", "gpu-7"))));
        await(stale.deliver(hook, flush(Flush.Reason.REPEAT, firing("f7", "gpu-7"))));
        assertEquals(0, sent.size());
        assertTrue(await(claims.claim("hook", firing("f7", "gpu-7"))), "the owner can still send it");

        await(stale.deliver(hook, flush(Flush.Reason.REPEAT, firing("f1", "gpu-0"))));
        assertEquals(1, sent.size(), "a repeat of its own alert goes as it comes");
    }

    @Test
    void aTaskAlertResolvesOnlyWhenNoLiveGatewayHoldsItFiring() throws Exception {
        SharedHolders h1 = new SharedHolders(holderMap, "g1");
        SharedHolders h2 = new SharedHolders(holderMap, "g2");
        ClaimedDelivery one = gateway("g1", n -> true);
        ClaimedDelivery two = gateway("g2", n -> true);
        // both gateways serve cards of the task and see its fault; one page
        await(h1.hold("t1"));
        await(one.deliver(hook, flush(Flush.Reason.FIRST, task("t1", Notification.Status.FIRING))));
        await(h2.hold("t1"));
        await(two.deliver(hook, flush(Flush.Reason.FIRST, task("t1", Notification.Status.FIRING))));
        assertEquals(1, sent.size());

        // the faulted card's node moves away from the first: its share of the task ends, the task's fault does not
        await(h1.release("t1"));
        await(one.deliver(hook, flush(Flush.Reason.RESOLVED, task("t1", Notification.Status.RESOLVED))));
        assertEquals(1, sent.size(), "a peer still holds it firing: no resolve");
        assertEquals(1, one.keptBack());

        // the second gateway dies holding it: the resolve kept back is news now
        live = Set.of("g1");
        await(one.recheck());
        assertEquals(2, sent.size());
        assertEquals(Notification.Status.RESOLVED, sent.get(1).get(0).status());
        assertEquals(0, one.keptBack());
    }

    @Test
    void aResolveKeptBackIsDroppedOnceTheLastHolderToldItOrANewEpisodeFiresHere() throws Exception {
        SharedHolders h1 = new SharedHolders(holderMap, "g1");
        SharedHolders h2 = new SharedHolders(holderMap, "g2");
        ClaimedDelivery one = gateway("g1", n -> true);
        ClaimedDelivery two = gateway("g2", n -> true);
        await(h1.hold("t1"));
        await(h2.hold("t1"));
        await(one.deliver(hook, flush(Flush.Reason.FIRST, task("t1", Notification.Status.FIRING))));
        await(h1.release("t1"));
        await(one.deliver(hook, flush(Flush.Reason.RESOLVED, task("t1", Notification.Status.RESOLVED))));
        // the last holder's condition ends too: it tells the resolve itself
        await(h2.release("t1"));
        await(two.deliver(hook, flush(Flush.Reason.RESOLVED, task("t1", Notification.Status.RESOLVED))));
        assertEquals(2, sent.size());
        await(one.recheck());
        assertEquals(2, sent.size(), "the resolve kept back was told already");

        // kept back again, then the alert fires anew here: the old resolve must never follow the new page
        await(h1.hold("t1"));
        await(h2.hold("t1"));
        await(one.deliver(hook, flush(Flush.Reason.NEW_ALERTS, task("t1", Notification.Status.FIRING))));
        await(h1.release("t1"));
        await(one.deliver(hook, flush(Flush.Reason.RESOLVED, task("t1", Notification.Status.RESOLVED))));
        await(h1.hold("t1"));
        await(one.deliver(hook, flush(Flush.Reason.NEW_ALERTS, task("t1", Notification.Status.FIRING))));
        assertEquals(0, one.keptBack());
        live = Set.of("g1");
        await(one.recheck());
        assertEquals(3, sent.size(), "the second episode paged once, and nothing resolved it");
    }

    @Test
    void theHoldsOfGatewaysNoLongerLiveArePurged() throws Exception {
        await(new SharedHolders(holderMap, "g1").hold("t1"));
        await(new SharedHolders(holderMap, "gone").hold("t1"));
        SharedHolders h2 = new SharedHolders(holderMap, "g2");
        assertTrue(await(h2.heldElsewhere("t1", Set.of("g1", "g2"))));
        assertFalse(await(h2.heldElsewhere("t1", Set.of("g2"))), "holders that are not live hold nothing");
        await(h2.purge(Set.of("g2")));
        assertEquals(Set.of(), await(holderMap.keys()));
    }

    @Test
    void theSharedAlertsOfANodeComeBackForTheGatewayThatTakesItOver() throws Exception {
        SharedAlerts alerts = new SharedAlerts(alertMap);
        await(alerts.record(firing("f1", "gpu-0")));
        await(alerts.record(firing("f9", "gpu-9")));
        await(alertMap.put("junk", "{not json"));

        List<SharedAlerts.Entry> of0 = await(alerts.ofNode("gpu-0"));
        assertEquals(List.of(new SharedAlerts.Entry("f1", "xid-fallen-off-bus", firing("f1", "gpu-0").labels(),
                Map.of("summary", "GPU fell off the bus"), START.toEpochMilli())), of0);

        await(alerts.record(resolved("f1", "gpu-0")));
        assertEquals(List.of(), await(alerts.ofNode("gpu-0")), "a resolved alert is no longer shared");
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
}
