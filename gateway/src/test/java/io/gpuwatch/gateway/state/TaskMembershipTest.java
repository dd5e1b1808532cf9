package io.gpuwatch.gateway.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.scope.ScopeView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which cards a task and a business hold as samples attribute them: a card stays while its process keeps being
 * reported, leaves once unreported for the grace period or dropped by its node, and a task that appears within an
 * instant the businesses were already built for is counted in them when they are built again; a card's own labels follow the newest
 * attribution.
 */
class TaskMembershipTest {
    private static final long GRACE = FleetState.MEMBERSHIP_GRACE_MS;

    private final FleetState fleet = new FleetState();

    private static Hello hello(String node, String... uuids) {
        List<CardInfo> cards = new ArrayList<>();
        for (int i = 0; i < uuids.length; i++) {
            cards.add(new CardInfo(uuids[i], i, "H100", null, null, null, null, null));
        }
        return new Hello(1, node, "boot", "test", null, null, Map.of(), cards);
    }

    /** One sample of {@code node} at {@code at}: each card runs a process of {@code task} owned by {@code owner}. */
    private void sample(String node, long at, String task, String owner, String... uuids) {
        List<CardReading> readings = new ArrayList<>();
        for (String uuid : uuids) {
            // a fresh copy of every string, as each decoded frame brings
            readings.add(new CardReading(uuid, MetricValues.builder().set(Metric.GPU_UTIL, 90).build(),
                    List.of(new ProcessInfo(4000, null, new String(task), new String(owner), new String("ads")))));
        }
        fleet.sample(node, new Sample(at, at, readings), at, c -> { });
    }

    private TaskState task(String name) {
        return fleet.tasks().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }

    private static List<String> uuids(Collection<? extends ScopeView> members) {
        return members.stream().map(m -> m.label("card.uuid")).sorted().toList();
    }

    @Test
    void aCardReportedAgainAndAgainStaysPastTheGraceOfItsFirstReport() {
        fleet.hello(hello("n1", "GPU-1", "GPU-2"), 0);
        sample("n1", 0, "train", "alice", "GPU-1", "GPU-2");
        for (long at = 10_000; at <= GRACE + 60_000; at += 10_000) {
            sample("n1", at, "train", "alice", "GPU-1");
        }
        long now = GRACE + 60_001;
        fleet.expire(now, key -> { });
        assertEquals(List.of("GPU-1"), uuids(task("train").at(now).members()),
                "GPU-2 was last reported more than the grace ago; GPU-1 a second ago");
        assertEquals("alice", task("train").label("owner"));
    }

    @Test
    void aCardItsNodeNoLongerListsLeavesItsTaskAndBusiness() {
        fleet.hello(hello("n1", "GPU-1", "GPU-2"), 0);
        sample("n1", 1_000, "train", "alice", "GPU-1", "GPU-2");
        assertEquals(List.of("GPU-1", "GPU-2"), uuids(task("train").at(1_500).members()));

        fleet.hello(hello("n1", "GPU-1"), 2_000);
        assertEquals(List.of("GPU-1"), uuids(task("train").at(2_500).members()));
        BusinessState ads = fleet.businesses(2_500).iterator().next();
        assertEquals(List.of("GPU-1"), uuids(ads.members()));
    }

    @Test
    void aTaskThatAppearsWithinAnInstantAlreadyBuiltJoinsItsBusiness() {
        fleet.hello(hello("n1", "GPU-1"), 0);
        fleet.hello(hello("n2", "GPU-9"), 0);
        sample("n1", 1_000, "train", "alice", "GPU-1");
        assertEquals(List.of("GPU-1"), uuids(fleet.businesses(1_000).iterator().next().members()));

        sample("n2", 1_000, "serve", "bob", "GPU-9");
        assertEquals(List.of("GPU-1", "GPU-9"), uuids(fleet.businesses(1_000).iterator().next().members()));
    }

    @Test
    void aCardsLabelsFollowItsNewestAttributionAndEndWithItsProcesses() {
        fleet.hello(hello("n1", "GPU-1"), 0);
        CardState card = fleet.node("n1").card("GPU-1");
        for (long at = 1_000; at <= 3_000; at += 1_000) {
            // the memory a process uses changes with every sample; who it belongs to does not
            fleet.sample("n1", new Sample(at, at, List.of(new CardReading("GPU-1", MetricValues.builder().build(),
                    List.of(new ProcessInfo(4000, at * 1_000, "train", "alice", "ads"))))), at, c -> { });
        }
        assertEquals("train", card.label("task"));
        assertEquals("alice", card.label("owner"));

        sample("n1", 4_000, "serve", "bob", "GPU-1");
        assertEquals("serve", card.label("task"));
        assertEquals("bob", card.label("owner"));
        assertTrue(card.allocated());

        fleet.sample("n1", new Sample(5_000, 5_000, List.of(new CardReading("GPU-1", MetricValues.builder().build(),
                List.of()))), 5_000, c -> { });
        assertNull(card.label("task"), "no process runs on it any more");
        assertFalse(card.allocated());
    }
}
