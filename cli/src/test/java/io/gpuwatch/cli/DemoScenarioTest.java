package io.gpuwatch.cli;

import io.gpuwatch.gateway.delivery.Dispatcher;
import io.gpuwatch.gateway.eval.Evaluator;
import io.gpuwatch.gateway.ledger.MemoryLedger;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demo's script through the example pack and the delivery of a gateway without a routing file (the
 * built-in inhibitions included) on a stepped clock, no sockets: what `./gpuwatch demo` prints, decided in a
 * second. Each incident notifies once and resolves once, except the two that are still open when the demo ends
 * (the card that fell off the bus stays lost; the application fault's ticket stays open for half an hour),
 * 10 notifications in all; the idle notebook is too short to report, and nothing else makes a sound.
 */
class DemoScenarioTest {
    private static final long T0 = 1_764_700_000_000L;

    private record Sent(long atSec, Notification n) {
        @Override
        public String toString() {
            return "+" + atSec + "s " + n.status() + " " + n.labels().get("alertname") + " " + n.labels().get("node")
                    + " " + n.labels().getOrDefault("uuid", "");
        }
    }

    @Test
    void everyIncidentNotifiesOnceAndResolvesOnceUnlessStillOpenAndQuietCardsStayQuiet() {
        RuleLoad rules = RuleSet.load(List.of(Path.of("../examples/rules")));
        assertTrue(rules.ok(), rules.diagnostics().toString());
        ScenarioLoad load = ScenarioLoader.load(Path.of("../examples/scenarios/demo.yaml"));
        Scenario demo = assertInstanceOf(ScenarioLoad.Loaded.class, load).scenario();
        Scenario endless = demo.with(null, demo.seed());
        SimFleet sim = new SimFleet(endless, T0);
        FleetState fleet = new FleetState();
        MemoryLedger ledger = new MemoryLedger(1000, "http://demo");
        List<Sent> sent = new ArrayList<>();
        long[] now = {T0};
        Receiver console = new Receiver() {
            @Override
            public String name() {
                return "console";
            }

            @Override
            public Future<Void> send(List<Notification> batch) {
                batch.forEach(n -> sent.add(new Sent((now[0] - T0) / 1000, n)));
                return Future.succeededFuture();
            }
        };
        Dispatcher dispatcher = Dispatcher.broadcast(List.of(console), () -> Instant.ofEpochMilli(now[0]));
        Evaluator evaluator = new Evaluator(fleet, rules.ruleSet(), t -> ledger.apply(t, dispatcher::dispatch));
        for (String node : sim.nodes()) {
            fleet.hello(sim.hello(node), T0);
        }
        long endSec = demo.duration().toSeconds() + DemoCommand.DEFAULT_LINGER.toSeconds();
        for (long s = 0; s <= endSec; s++) {
            now[0] = T0 + s * 1000;
            long at = now[0];
            for (String node : sim.nodes()) {
                if (sim.silent(node, at)) {
                    continue;
                }
                for (Event e : sim.eventsDue(node, at)) {
                    var card = fleet.event(node, e, at);
                    if (card != null) {
                        evaluator.card(card, at);
                    }
                    evaluator.node(fleet.node(node), at);
                }
                fleet.sample(node, sim.sample(node, at), at, card -> evaluator.card(card, at));
            }
            evaluator.tick(at, 1000);
            dispatcher.tick();
        }

        Map<String, List<Sent>> byAlert = new LinkedHashMap<>();
        for (Sent s : sent) {
            byAlert.computeIfAbsent(s.n().labels().get("alertname") + " " + s.n().fingerprint(), k -> new ArrayList<>()).add(s);
        }
        assertEquals(List.of("xid-application-fault", "thermal-throttling-under-load", "xid-fallen-off-bus",
                        "node-xid-burst", "memory-climb-with-oom", "node-silent").stream().sorted().toList(),
                byAlert.keySet().stream().map(k -> k.split(" ")[0]).sorted().toList(),
                "one alert per incident, none for quiet cards: " + sent);
        assertEquals(10, sent.size(), "6 incidents, each one notification and one resolution but two still open: "
                + sent);
        assertEquals(10, dispatcher.sent());
        List<String> stillOpen = List.of("xid-fallen-off-bus", "xid-application-fault");
        for (List<Sent> episode : byAlert.values()) {
            boolean open = stillOpen.contains(episode.get(0).n().labels().get("alertname"));
            assertEquals(open ? 1 : 2, episode.size(), "one notification and one resolution unless still open: "
                    + episode);
            assertEquals(Notification.Status.FIRING, episode.get(0).n().status());
            if (!open) {
                assertEquals(Notification.Status.RESOLVED, episode.get(1).n().status());
            }
            assertTrue(episode.get(0).atSec() <= 120, "notified within two minutes of the start: " + episode);
        }
        System.out.println("demo timeline: " + sent);
    }
}
