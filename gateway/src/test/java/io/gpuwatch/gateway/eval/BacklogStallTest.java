package io.gpuwatch.gateway.eval;

import io.gpuwatch.gateway.ledger.MemoryLedger;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A probe re-sends a backlog after an outage, and the gateway stalls for a few seconds in the middle of it (a
 * collection, a busy host): the tick that runs meanwhile must not evaluate the node at its arrival time on windows
 * that hold only the first half of the backlog, which would move the node's rules past the rest of it and lose
 * an incident inside the outage.
 */
class BacklogStallTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final String RULES = """
            group: stall
            layer: device
            severity: page
            rules:
              - name: node-hot
                scope: node
                when: count(cards where tempC > 85) > 0
                for: 20s
              - name: card-hot
                scope: card
                when: tempC > 85
                for: 20s
            """;

    private final List<Notification> sent = new ArrayList<>();
    private final FleetState fleet = new FleetState();
    private final MemoryLedger ledger = new MemoryLedger(100, "http://gw");
    private Evaluator evaluator;

    private Sample sample(long seq, long ts, double temp) {
        return new Sample(seq, ts, List.of(new CardReading("GPU-1",
                MetricValues.builder().set(Metric.TEMP_C, temp).build(), List.of())));
    }

    /** Hot from +62 s to +95 s (firing from +82 s); the gateway hears nothing from +41 s until +100 s, then the backlog. */
    private static double temp(int s) {
        return s >= 62 && s <= 95 ? 90 : 60;
    }

    @Test
    void aStallInTheMiddleOfABacklogDoesNotLoseTheIncidentInsideIt() {
        RuleLoad load = RuleSet.parse("stall.yml", RULES);
        assertTrue(load.ok(), load.diagnostics().toString());
        evaluator = new Evaluator(fleet, load.ruleSet(), t -> ledger.apply(t, sent::add));
        fleet.hello(new Hello(1, "node-1", "boot", "test", null, null, Map.of(),
                List.of(new CardInfo("GPU-1", 0, "NVIDIA H100", null, null, null, null, null))), T0);
        for (int s = 1; s <= 40; s++) {
            long at = T0 + s * 1000L;
            evaluator.sample("node-1", sample(s, at, temp(s)), at, 1000);
            evaluator.tick(at, 1000);
        }
        // the outage: ticks go on, nothing arrives (no rule reads silence here)
        for (int s = 41; s < 100; s++) {
            evaluator.tick(T0 + s * 1000L, 1000);
        }
        long back = T0 + 100_000;
        evaluator.heardAgain("node-1");
        for (int s = 41; s <= 60; s++) {
            evaluator.sample("node-1", sample(s, T0 + s * 1000L, temp(s)), back, 1000);
        }
        // 2.5 s without a frame: the gateway stalled; its tick runs in between
        evaluator.tick(back + 2_500, 1000);
        for (int s = 61; s <= 99; s++) {
            evaluator.sample("node-1", sample(s, T0 + s * 1000L, temp(s)), back + 2_500, 1000);
        }
        for (int s = 100; s <= 130; s++) {
            long at = T0 + s * 1000L + 2_600;
            evaluator.sample("node-1", sample(s, at, temp(s)), at, 1000);
            evaluator.tick(at, 1000);
        }
        List<String> fired = sent.stream().filter(n -> n.status() == Notification.Status.FIRING)
                .map(n -> n.labels().get("alertname") + "@" + (n.startsAt().toEpochMilli() - T0) / 1000).sorted()
                .toList();
        assertEquals(List.of("card-hot@82", "node-hot@82"), fired,
                "both page for the incident inside the outage, as it happened: " + sent);
        assertEquals(2, sent.stream().filter(n -> n.status() == Notification.Status.RESOLVED).count(), sent.toString());
        assertTrue(sent.stream().allMatch(n -> n.startsAt().isBefore(Instant.ofEpochMilli(back))));
    }
}
