package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.scenario.CardModel;
import io.gpuwatch.probe.scenario.Incident;
import io.gpuwatch.probe.scenario.XidCatalog;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.LongConsumer;

/** One simulated node: its cards, its incident timeline and the events that have happened but not been taken. */
final class SimNode {
    static final String PROBE = "gpuwatch-probe/0.1.0 (simulated)";
    static final String DRIVER = "580.95.05";
    static final String NVML = "13.580.95.05";
    private static final long MAX_STEP_MS = 1000;
    // PCI bus numbers of the eight cards of a DGX H100
    private static final int[] BUSES = {0x1B, 0x43, 0x52, 0x61, 0x9D, 0xC3, 0xD1, 0xDF};

    final String name;
    private final long startMs;
    private final SplittableRandom random;
    private final List<SimCard> cards = new ArrayList<>();
    private final Hello hello;
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
        List<CardInfo> infos = new ArrayList<>();
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
        UUID boot = new UUID((random.nextLong() & ~0xF000L) | 0x4000L, (random.nextLong() & ~(3L << 62)) | (2L << 62));
        this.hello = new Hello(Frame.VERSION, name, boot.toString(), PROBE, DRIVER, NVML, labels, infos);
        for (Incident incident : incidents) {
            plan(incident);
        }
        cards.forEach(SimCard::settle);
    }

    private void plan(Incident incident) {
        long at = incident.at().toMillis();
        if (incident instanceof Incident.Xid x) {
            schedule(at, t -> cards.get(x.card()).xid(t, x.code(), x.text()));
        } else if (incident instanceof Incident.XidBurst b) {
            for (int i = 0; i < b.count(); i++) {
                SimCard card = cards.get(b.cards().get(i % b.cards().size()));
                int code = b.codes().get(i % b.codes().size());
                schedule(at + i * b.every().toMillis(), t -> card.xid(t, code, XidCatalog.text(code)));
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
        }
    }

    Hello hello() {
        return hello;
    }

    boolean silent(long elapsed) {
        for (long[] s : silences) {
            if (elapsed >= s[0] && elapsed < s[1]) {
                return true;
            }
        }
        return false;
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

    long newPid() {
        return random.nextLong(20_000, 2_000_000);
    }
}
