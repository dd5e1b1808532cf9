package io.gpuwatch.gateway.state;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A node's task, owner and business are what most of its cards run. The node keeps them between reads; this
 * checks that every change that can move them (a card's process, a card listed or dropped) is seen on the next
 * read.
 */
class NodeLabelsTest {
    private static final long T0 = 1_767_571_200_000L;

    private final FleetState fleet = new FleetState();
    private long now = T0;

    private void hello(int cards) {
        List<CardInfo> infos = new ArrayList<>();
        for (int i = 0; i < cards; i++) {
            infos.add(new CardInfo("c-" + i, i, "H100", null, null, null, null, null));
        }
        fleet.hello(new Hello(1, "n", "boot", "test", null, null, Map.of(), infos), now);
    }

    /** One sample: card i runs task {@code tasks[i]} of owner "o-" + task (null: no process). */
    private void sample(String... tasks) {
        now += 1_000;
        List<CardReading> readings = new ArrayList<>();
        for (int i = 0; i < tasks.length; i++) {
            List<ProcessInfo> p = tasks[i] == null ? List.of()
                    : List.of(new ProcessInfo(100 + i, null, tasks[i], "o-" + tasks[i], "b-" + tasks[i]));
            readings.add(new CardReading("c-" + i, MetricValues.builder().set(Metric.GPU_UTIL, 50).build(), p));
        }
        fleet.sample("n", new Sample(now, now, readings), now, c -> { });
    }

    private String label(String key) {
        return fleet.node("n").at(now).label(key);
    }

    @Test
    void theMostCommonLabelsFollowEveryChangeOfTheCards() {
        hello(4);
        assertNull(label("task"));
        sample("a", "a", "b", null);
        assertEquals("a", label("task"));
        assertEquals("o-a", label("owner"));
        assertEquals("b-a", label("business"));
        // the same processes again: nothing moves
        sample("a", "a", "b", null);
        assertEquals("a", label("task"));
        // processes change under the same node
        sample("b", "a", "b", "b");
        assertEquals("b", label("task"));
        assertEquals("o-b", label("owner"));
        sample(null, null, null, null);
        assertNull(label("task"));
        assertNull(label("business"));
        sample("a", "b", "b", "a");
        // a tie goes to the first card's
        assertEquals("a", label("task"));
        // a hello that drops cards 0 and 3 leaves b the most common
        fleet.hello(new Hello(1, "n", "boot", "test", null, null, Map.of(),
                List.of(new CardInfo("c-1", 1, "H100", null, null, null, null, null),
                        new CardInfo("c-2", 2, "H100", null, null, null, null, null))), now);
        assertEquals("b", label("task"));
        // a card a sample names without a hello joins the count
        sample("c", "b", "c");
        assertEquals("c", label("task"));
    }
}
