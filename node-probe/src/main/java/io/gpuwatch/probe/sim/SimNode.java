package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.scenario.CardModel;
import io.gpuwatch.probe.scenario.Incident;
import io.gpuwatch.probe.scenario.XidCatalog;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.LongConsumer;

/**
 * One simulated node: its cards, its incident timeline, the events that have happened but not been taken, and
 * the application readings of the inference services it runs.
 */
final class SimNode {
    static final String PROBE = "gpuwatch-probe/0.1.0 (simulated)";
    static final String DRIVER = "580.95.05";
    static final String NVML = "13.580.95.05";
    private static final long MAX_STEP_MS = 1000;
    // PCI bus numbers of the eight cards of a DGX H100
    private static final int[] BUSES = {0x1B, 0x43, 0x52, 0x61, 0x9D, 0xC3, 0xD1, 0xDF};
    /** Tokens a serving card makes per second at full utilisation, and per request on average. */
    private static final double TOKENS_PER_CARD = 2500;
    private static final double TOKENS_PER_REQUEST = 320;
    private static final double TTFT_P50_MS = 180;

    final String name;
    private final long startMs;
    private final SplittableRandom random;
    private final List<SimCard> cards = new ArrayList<>();
    private final String nodeName;
    private final Map<String, String> labels;
    private final List<CardInfo> infos = new ArrayList<>();
    private final SplittableRandom appRandom;
    private final Map<String, Long> ooms = new HashMap<>();
    private final List<long[]> disconnects = new ArrayList<>();
    private Hello hello;
    private final PriorityQueue<Trigger> triggers = new PriorityQueue<>(
            Comparator.comparingLong(Trigger::at).thenComparingLong(Trigger::order));
    private final List<long[]> silences = new ArrayList<>();
    private final List<Event> pending = new ArrayList<>();
    private long triggerOrder;
    private long steppedTo;

    /** An action due at an elapsed time; {@code order} keeps same-time actions in the order they were scheduled. */
    private record Trigger(long at, long order, LongConsumer action) {
    }

    SimNode(String name, long startMs, CardModel model, List<Workload> workloads, Map<String, String> labels,
            List<Incident> incidents, SplittableRandom random) {
        this.name = name;
        this.startMs = startMs;
        this.random = random;
        this.nodeName = name;
        this.labels = labels;
        for (int i = 0; i < workloads.size(); i++) {
            String uuid = String.format("GPU-%08x-%04x-%04x-%04x-%012x", random.nextInt() & 0xffffffffL,
                    random.nextInt(0x10000), random.nextInt(0x10000), random.nextInt(0x10000),
                    random.nextLong() & 0xffffffffffffL);
            int bus = i < BUSES.length ? BUSES[i] : 0x10 + i * 0x08;
            SimCard card = new SimCard(this, i, uuid, String.format("00000000:%02X:00.0", bus), model,
                    workloads.get(i), random.split());
            cards.add(card);
            infos.add(card.info());
        }
        this.hello = boot();
        for (Incident incident : incidents) {
            plan(incident);
        }
        cards.forEach(SimCard::settle);
        this.appRandom = random.split();
    }

    /** A hello with a new bootId. */
    private Hello boot() {
        UUID boot = new UUID((random.nextLong() & ~0xF000L) | 0x4000L, (random.nextLong() & ~(3L << 62)) | (2L << 62));
        return new Hello(Frame.VERSION, nodeName, boot.toString(), PROBE, DRIVER, NVML, labels, infos);
    }

    private void plan(Incident incident) {
        long at = incident.at().toMillis();
        if (incident instanceof Incident.Xid x) {
            schedule(at, t -> cards.get(x.card()).xid(t, x.code(), x.text(), x.lost()));
        } else if (incident instanceof Incident.XidBurst b) {
            for (int i = 0; i < b.count(); i++) {
                SimCard card = cards.get(b.cards().get(i % b.cards().size()));
                int code = b.codes().get(i % b.codes().size());
                schedule(at + i * b.every().toMillis(), t -> card.xid(t, code, XidCatalog.text(code), code == 79));
            }
        } else if (incident instanceof Incident.ThermalThrottle th) {
            SimCard card = cards.get(th.card());
            schedule(at, t -> card.coolingFailed(true));
            schedule(at + th.duration().toMillis(), t -> card.coolingFailed(false));
        } else if (incident instanceof Incident.MemoryClimb m) {
            double rate = m.bytes() / (double) m.per().toMillis();
            schedule(at, t -> cards.get(m.card()).climb(rate));
        } else if (incident instanceof Incident.NodeSilent s) {
            silences.add(new long[]{at, at + s.duration().toMillis()});
        } else if (incident instanceof Incident.IdleAllocated ia) {
            SimCard card = cards.get(ia.card());
            if (at == 0) {
                card.startIdleHeld();
            } else {
                schedule(at, card::idleHeld);
            }
            schedule(at + ia.duration().toMillis(), card::idleReleased);
        } else if (incident instanceof Incident.EccUncorrected e) {
            schedule(at, t -> cards.get(e.card()).eccUncorrected(t, e.count(), e.xid(), e.remapFailure()));
        } else if (incident instanceof Incident.EccCorrected e) {
            schedule(at, t -> cards.get(e.card()).eccCorrected(t, e.count()));
        } else if (incident instanceof Incident.Spell sp) {
            long until = at + sp.duration().toMillis();
            for (SimCard card : sp.cards().isEmpty() ? cards : sp.cards().stream().map(cards::get).toList()) {
                if (at == 0 && sp.effect() instanceof Incident.Effect.Vacant) {
                    // a card empty from the start was so before the probe: no exit to report
                    card.vacate(0, null);
                } else {
                    schedule(at, t -> card.cast(t, sp.effect(), until));
                }
                schedule(until, t -> card.lift(t, sp.effect()));
            }
        } else if (incident instanceof Incident.ProbeDisconnect d) {
            disconnects.add(new long[]{at, at + d.duration().toMillis()});
        } else if (incident instanceof Incident.NodeReboot r) {
            long up = at + r.down().toMillis();
            silences.add(new long[]{at, up});
            schedule(at, t -> cards.forEach(c -> c.vacate(t, null)));
            schedule(up, t -> {
                hello = boot();
                cards.forEach(c -> c.rebooted(t, true));
            });
        }
    }

    Hello hello() {
        return hello;
    }

    boolean silent(long elapsed) {
        return within(silences, elapsed);
    }

    boolean disconnected(long elapsed) {
        return within(disconnects, elapsed);
    }

    private static boolean within(List<long[]> spans, long elapsed) {
        for (long[] s : spans) {
            if (elapsed >= s[0] && elapsed < s[1]) {
                return true;
            }
        }
        return false;
    }

    /** The process on a card now, or null when it is empty or lost. */
    SimProcess process(int card) {
        return cards.get(card).process();
    }

    String uuid(int card) {
        return cards.get(card).uuid;
    }

    /**
     * The application readings of each inference service on the node, as its servers would export them:
     * tokens/s and requests follow the cards' utilisation; Serving spells cut tokens/s and stretch latency. The
     * service's cards on the node are one tensor-parallel replica, so a spell on one shard slows all of it.
     */
    List<App> apps(long elapsed) {
        advance(elapsed);
        Map<String, List<SimCard>> byTask = new LinkedHashMap<>();
        Map<String, String> business = new HashMap<>();
        for (SimCard c : cards) {
            SimProcess p = c.process();
            if (p != null && !p.idleHold && p.workload.serves()) {
                byTask.computeIfAbsent(p.task, k -> new ArrayList<>()).add(c);
                business.put(p.task, p.business);
            }
        }
        List<App> out = new ArrayList<>();
        byTask.forEach((task, shards) -> {
            double load = 0;
            double tokens = 0;
            double latency = 0;
            double slowest = 1;
            for (SimCard c : shards) {
                double u = c.util() / 100;
                load += u;
                tokens += u * TOKENS_PER_CARD;
                // the shards of a tensor-parallel server step in lockstep: the slowest sets the replica's pace
                slowest = Math.min(slowest, c.tokensShare());
                // a server that makes fewer tokens for the same requests makes them wait; its slowest shard
                // sets the tail
                latency = Math.max(latency, c.latencyFactor() / Math.pow(Math.max(0.02, c.tokensShare()), 0.7));
            }
            tokens *= slowest;
            double mean = load / shards.size();
            double requests = load * TOKENS_PER_CARD / TOKENS_PER_REQUEST;
            double ttft = TTFT_P50_MS * (1 + 0.6 * mean * mean) * latency * appRandom.nextDouble(0.95, 1.05);
            MetricValues values = MetricValues.builder()
                    .set(Metric.TOKENS_PER_SEC, Math.round(tokens * appRandom.nextDouble(0.97, 1.03)))
                    .set(Metric.REQUESTS_PER_SEC, Math.round(requests * appRandom.nextDouble(0.97, 1.03) * 10) / 10.0)
                    .set(Metric.TTFT_P50_MS, Math.round(ttft))
                    .set(Metric.TTFT_P99_MS, Math.round(ttft * appRandom.nextDouble(3.0, 3.4)))
                    .set(Metric.LATENCY_P99_MS, Math.round(ttft * 40 * appRandom.nextDouble(0.95, 1.05)))
                    .set(Metric.QUEUE_LENGTH, Math.round(requests * ttft / 1000))
                    .set(Metric.BATCH_SIZE, Math.round(8 + 24 * mean))
                    .set(Metric.KV_CACHE_USAGE, Math.round(Math.min(0.99, 0.35 + 0.5 * mean) * 100) / 100.0)
                    .set(Metric.OOM_TOTAL, ooms.getOrDefault(task, 0L))
                    .build();
            out.add(new App(0, startMs + steppedTo, task, business.get(task), "vllm", values));
        });
        return out;
    }

    Sample sample(long elapsed) {
        advance(elapsed);
        List<CardReading> readings = new ArrayList<>(cards.size());
        for (SimCard card : cards) {
            readings.add(card.reading());
        }
        return new Sample(0, startMs + steppedTo, readings);
    }

    List<Event> eventsDue(long elapsed) {
        advance(elapsed);
        pending.sort(Comparator.comparingLong(Event::ts));
        List<Event> out = List.copyOf(pending);
        pending.clear();
        return out;
    }

    private void advance(long elapsed) {
        while (true) {
            while (!triggers.isEmpty() && triggers.peek().at() <= steppedTo) {
                Trigger t = triggers.poll();
                t.action().accept(t.at());
            }
            if (steppedTo >= elapsed) {
                return;
            }
            long next = Math.min(elapsed, steppedTo + MAX_STEP_MS);
            if (!triggers.isEmpty()) {
                next = Math.min(next, triggers.peek().at());
            }
            for (SimCard card : cards) {
                card.step(steppedTo, next - steppedTo);
            }
            steppedTo = next;
        }
    }

    // ---- for cards

    void emit(long at, String uuid, String kind, Integer xid, String text, Long pid) {
        pending.add(new Event(0, startMs + at, uuid, kind, xid, text, pid));
    }

    void schedule(long at, LongConsumer action) {
        triggers.add(new Trigger(at, triggerOrder++, action));
    }

    void oomed(String task) {
        ooms.merge(task, 1L, Long::sum);
    }

    long newPid() {
        return random.nextLong(20_000, 2_000_000);
    }
}
