package io.gpuwatch.bench;

import io.gpuwatch.gateway.escalation.Escalations;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.RoutingLoad;
import io.gpuwatch.notify.Notification;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What escalation costs the gateway's event loop on every tick with {@code alerts} live alerts whose route names
 * a policy, none of them due: finding each alert's policy through the routing tree, then one
 * {@link Escalations#advance} pass over all of them (the gateway also reads each alert's acknowledgement and
 * mutes, which are map look-ups).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class EscalationBench {
    private static final Instant T0 = Instant.parse("2026-12-12T09:00:00Z");

    @Param({"1000", "10000"})
    public int alerts;

    private RoutingConfig routing;
    private Escalations escalations;
    private List<Notification> live;

    @Setup
    public void setup() {
        RoutingLoad load = RoutingConfig.parse("bench.yml", """
                escalation_policies:
                  - name: page
                    repeat: 2
                    steps:
                      - {via: [pager], timeout: 5m}
                      - {via: [pager], timeout: 10m}
                      - {via: [pager], timeout: 15m}
                route:
                  receiver: chat
                  group_by: [alertname, node]
                  routes:
                    - matchers: ['severity="ticket"']
                      receiver: chat
                    - matchers: ['severity="page"', 'layer=~"device|fabric"']
                      escalation: page
                """, Set.of("chat", "pager"));
        routing = load.config();
        escalations = new Escalations(routing.escalationPolicies(), () -> T0);
        live = new ArrayList<>();
        for (int i = 0; i < alerts; i++) {
            live.add(new Notification("fp" + i, Notification.Status.FIRING, Map.of("alertname", "xid-79",
                    "severity", "page", "layer", "device", "node", "gpu-" + i, "uuid", "GPU-" + i), Map.of(),
                    T0, null, ""));
        }
        // every escalation at its first step, waiting: the steady state of a tick
        escalations.advance(candidates());
    }

    private List<Escalations.Candidate> candidates() {
        List<Escalations.Candidate> out = new ArrayList<>(live.size());
        for (Notification n : live) {
            routing.escalation(n.labels()).ifPresent(p -> out.add(new Escalations.Candidate(n,
                    T0.toEpochMilli(), p, false)));
        }
        return out;
    }

    @Benchmark
    public Escalations.Pass tick() {
        return escalations.advance(candidates());
    }
}
