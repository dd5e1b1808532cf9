package io.gpuwatch.gateway.replay;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReplayTest {
    private static final long T0 = 1_764_700_000_000L;

    private static RuleSet rules(String yaml) {
        RuleLoad load = RuleSet.parse("r.yml", yaml);
        assertTrue(load.ok(), load.diagnostics().toString());
        return load.ruleSet();
    }

    private static final RuleSet SILENT = rules("""
            group: t
            layer: device
            severity: page
            scope: node
            rules:
              - name: silent
                when: silentFor > 2s
            """);

    private static Hello hello(String node, String... uuids) {
        List<CardInfo> cards = new ArrayList<>();
        for (int i = 0; i < uuids.length; i++) {
            cards.add(new CardInfo(uuids[i], i, null, null, null, null, null, null));
        }
        return new Hello(1, node, "b1", "test", null, null, Map.of(), cards);
    }

    private static Sample sample(long seq, long ts, String uuid, double util, ProcessInfo... processes) {
        return new Sample(seq, ts, List.of(new CardReading(uuid,
                MetricValues.builder().set(Metric.GPU_UTIL, util).build(), List.of(processes))));
    }

    private static List<String> timeline(Replay r) {
        return r.sent().stream().map(s -> "+" + (s.at() - T0) + " " + s.notification().status() + " " + s.rule())
                .toList();
    }

    @Test
    void ticksRunEverySecondOfVirtualTimeBetweenInputs() {
        Replay r = new Replay(SILENT);
        r.feed("n1", hello("n1", "GPU-1"), T0);
        r.advanceTo(T0 + 2_999);
        assertEquals(List.of(), r.sent(), "silent for 2 s is not more than 2 s");
        r.advanceTo(T0 + 3_000);
        assertEquals(List.of("+3000 FIRING silent"), timeline(r));
        // node rules do not run on samples: the tick after the sample resolves
        r.feed("n1", sample(1, T0 + 5_500, "GPU-1", 50), T0 + 5_500);
        assertEquals(1, r.sent().size());
        r.advanceTo(T0 + 6_000);
        assertEquals(List.of("+3000 FIRING silent", "+6000 RESOLVED silent"), timeline(r));
        assertEquals(7, r.stats().ticks(), "ticks at 0 … 6 s");
        assertEquals(6_000, r.stats().spanMs());
    }

    @Test
    void framesStampedBeforeTheClockArriveNowAndAreCounted() {
        Replay r = new Replay(SILENT);
        r.feed("n1", hello("n1", "GPU-1"), T0);
        r.feed("n1", sample(1, T0 + 2_000, "GPU-1", 50), T0 + 2_000);
        r.feed("n1", sample(2, T0 + 1_500, "GPU-1", 50), T0 + 1_500);
        assertEquals(T0 + 2_000, r.now());
        assertEquals(1, r.stats().clamped());
        assertEquals(3, r.stats().frames());
        assertEquals(2, r.stats().samples());
        assertEquals(2, r.stats().cardReadings());
    }

    @Test
    void cardRulesRunOnArrivalAndTheScopeKeepsTheAttributionTheAlertFiredWith() {
        Replay r = new Replay(rules("""
                group: t
                layer: device
                severity: page
                rules:
                  - name: xid
                    when: count(events('xid'), 5s) > 0
                    summary: "@{task} on @{card.uuid}"
                """));
        r.feed("n1", hello("n1", "GPU-1", "GPU-2"), T0);
        r.feed("n1", sample(1, T0, "GPU-1", 90, new ProcessInfo(7, null, "train", "ann", "ads")), T0);
        r.feed("n1", new Event(2, T0 + 1_200, "GPU-1", "xid", 13, null, null), T0 + 1_200);
        assertEquals(List.of("+1200 FIRING xid"), timeline(r), "fired on the event, not on the next tick");
        // the process is gone when the alert resolves; the resolution repeats what the page said
        r.feed("n1", sample(3, T0 + 2_000, "GPU-1", 0), T0 + 2_000);
        r.advanceTo(T0 + 10_000);
        assertEquals(List.of("+1200 FIRING xid", "+7000 RESOLVED xid"), timeline(r),
                "resolved by the first tick after the event left the 5 s window");
        Map<String, String> scope = Map.of("node", "n1", "uuid", "GPU-1", "task", "train", "owner", "ann",
                "business", "ads");
        for (Replay.Sent s : r.sent()) {
            assertEquals(scope, s.scope());
            assertEquals(List.of("node", "uuid", "task", "owner", "business"), List.copyOf(s.scope().keySet()));
            assertEquals("train on GPU-1", s.notification().annotations().get("summary"));
        }
        assertEquals(Notification.Status.RESOLVED, r.sent().get(1).notification().status());
        assertEquals(List.of(), r.firing());
    }

    @Test
    void firingListsWhatFiresNowAndListenersSeeEachNotification() {
        List<Replay.Sent> heard = new ArrayList<>();
        Replay r = new Replay(SILENT, 500, heard::add);
        r.feed("n1", hello("n1"), T0);
        r.feed("n2", hello("n2"), T0);
        r.advanceTo(T0 + 2_500);
        assertEquals(List.of("+2500 FIRING silent", "+2500 FIRING silent"), timeline(r),
                "a 500 ms tick notices silence at 2.5 s");
        assertEquals(r.sent(), heard);
        assertEquals(List.of("n1", "n2"), r.firing().stream().map(s -> s.scope().get("node")).toList());
    }
}
