package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.uplink.Backoff;
import io.gpuwatch.probe.uplink.TestGateway;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;
import io.vertx.core.Vertx;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
@Timeout(value = 20, timeUnit = TimeUnit.SECONDS)
class SimRunnerTest {
    // a short run: node-1 goes quiet from 300 ms to 700 ms of sim time and has an XID while away
    private static final String SCENARIO = """
            nodes: 2
            cardsPerNode: 2
            intervalMs: 20
            seed: 3
            duration: 1200ms
            incidents:
              - {at: 300ms, node: node-1, kind: node-silent, for: 400ms}
              - {at: 500ms, node: node-1, card: 1, kind: xid, code: 79}
            """;

    private static List<Frame> framesOf(TestGateway gateway, String node) {
        List<Frame> out = new ArrayList<>();
        gateway.connections.stream().filter(c -> !c.frames.isEmpty() && ((Hello) c.frames.get(0)).node().equals(node))
                .forEach(c -> out.addAll(c.frames));
        return out;
    }

    @Test
    void silentNodeDropsItsConnectionThenReturnsWithItsBootAndItsEvents(Vertx vertx, VertxTestContext ctx) {
        Scenario scenario = ((ScenarioLoad.Loaded) ScenarioLoader.parse("runner.yaml", SCENARIO)).scenario();
        TestGateway gateway = new TestGateway(vertx);
        gateway.start().compose(port -> {
            long start = System.currentTimeMillis();
            SimFleet fleet = new SimFleet(scenario, start);
            // the sim's time moves one interval per tick, from the moment both nodes are first connected,
            // so a slow first handshake cannot swallow the silence
            AtomicLong simTime = new AtomicLong(start);
            AtomicReference<SimRunner> self = new AtomicReference<>();
            LongSupplier clock = () -> {
                SimRunner r = self.get();
                boolean ready = simTime.get() > start
                        || r != null && r.uplink("node-0").stats().connected() && r.uplink("node-1").stats().connected();
                return ready ? simTime.addAndGet(scenario.intervalMs()) : start;
            };
            SimRunner runner = new SimRunner(vertx, fleet,
                    node -> UplinkConfig.of("localhost", port, TestGateway.TOKEN).withBackoff(new Backoff(10, 40)),
                    clock);
            self.set(runner);
            return runner.start().compose(v -> runner.finished()).map(v -> {
                ctx.verify(() -> {
                    List<Frame> quiet = framesOf(gateway, "node-0");
                    List<Frame> silent = framesOf(gateway, "node-1");
                    assertEquals(1, quiet.stream().filter(f -> f instanceof Hello).count());
                    List<Hello> hellos = silent.stream().filter(f -> f instanceof Hello).map(f -> (Hello) f).toList();
                    assertEquals(2, hellos.size(), "node-1 connects twice");
                    assertEquals(hellos.get(0).bootId(), hellos.get(1).bootId());

                    for (Frame f : silent) {
                        if (f instanceof Sample s) {
                            long at = s.ts() - start;
                            assertTrue(at < 300 || at >= 700, "node-1 sampled at " + at + " ms, inside its silence");
                        }
                    }
                    Event xid = silent.stream().filter(f -> f instanceof Event).map(f -> (Event) f)
                            .filter(e -> "xid".equals(e.kind())).findFirst().orElseThrow();
                    assertEquals(start + 500, xid.ts(), "the XID keeps the time it happened");
                    int secondHello = silent.indexOf(hellos.get(1));
                    assertTrue(silent.indexOf(xid) > secondHello, "and arrives after the node is back");

                    long seqs = silent.stream().filter(f -> !(f instanceof Hello)).mapToLong(Frame::seq).distinct().count();
                    long frames = silent.stream().filter(f -> !(f instanceof Hello)).count();
                    assertTrue(frames >= seqs, "replays only repeat seqs");
                    assertTrue(runner.uplink("node-0").stats().lastSeq() > 20);
                });
                return runner;
            }).compose(SimRunner::close);
        }).onComplete(ctx.succeedingThenComplete());
    }
}
