package io.gpuwatch.gateway.coverage;

import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.gateway.state.NodeState;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;
import io.gpuwatch.rules.Layer;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleSet;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which signals actually arrive, per card (samples), per relaying node and task (app frames) and per queue (sched
 * frames), over the last one or two windows; {@link #report} groups them by pool, card model and driver. Counting
 * a frame allocates nothing once its card, node, task or queue is known. Owned by the gateway's event loop.
 */
public final class CoverageBook {
    /** Default window: reports cover the last five to ten minutes. */
    public static final long DEFAULT_WINDOW_MS = 300_000;

    private static final int[] CARD_METRICS = ordinals(Metric.Source.CARD);
    private static final int[] APP_METRICS = ordinals(Metric.Source.APP);
    private static final int[] SCHED_METRICS = ordinals(Metric.Source.SCHED);

    private final long windowMs;
    private final Map<String, Tally> cards = new HashMap<>();
    private final Map<String, Tally> relays = new HashMap<>();
    private final Map<String, Tally> tasks = new HashMap<>();
    private final Map<String, Tally> queues = new HashMap<>();

    /** A book over windows of {@code windowMs}. */
    public CoverageBook(long windowMs) {
        if (windowMs <= 0) {
            throw new IllegalArgumentException("coverage window must be positive, got " + windowMs);
        }
        this.windowMs = windowMs;
    }

    private static int[] ordinals(Metric.Source source) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < Metric.count(); i++) {
            if (Metric.of(i).source() == source) {
                out.add(i);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    public long windowMs() {
        return windowMs;
    }

    /** Counts a frame of {@code node} that arrived at {@code at}; frames other than sample, app and sched are ignored. */
    public void frame(String node, Frame frame, long at) {
        if (frame instanceof Sample s) {
            sample(s, at);
        } else if (frame instanceof App a) {
            app(node, a, at);
        } else if (frame instanceof Sched s) {
            sched(s, at);
        }
    }

    private void sample(Sample s, long at) {
        List<CardReading> readings = s.cards();
        for (int r = 0; r < readings.size(); r++) {
            CardReading reading = readings.get(r);
            MetricValues v = reading.values();
            if (v.isEmpty() && reading.processes().isEmpty()) {
                continue; // a card listed without data this time: nothing arrived
            }
            Tally t = tally(cards, reading.uuid(), Signal.COUNT);
            t.frame(at);
            for (int i : CARD_METRICS) {
                if (!Double.isNaN(v.get(i))) {
                    t.signal(i);
                }
            }
            List<ProcessInfo> processes = reading.processes();
            if (!processes.isEmpty()) {
                t.signal(Signal.PROCESSES_LISTED);
                boolean memory = false;
                boolean task = false;
                for (int p = 0; p < processes.size(); p++) {
                    memory |= processes.get(p).usedMemBytes() != null;
                    task |= processes.get(p).task() != null;
                }
                if (memory) {
                    t.signal(Signal.PROCESS_MEMORY);
                }
                if (task) {
                    t.signal(Signal.TASK_ATTRIBUTED);
                }
            }
        }
    }

    private void app(String node, App a, long at) {
        count(tally(relays, node, Metric.count()), a.values(), APP_METRICS, at);
        count(tally(tasks, a.task(), Metric.count()), a.values(), APP_METRICS, at);
    }

    private void sched(Sched s, long at) {
        count(tally(queues, s.queue(), Metric.count()), s.values(), SCHED_METRICS, at);
        for (SchedTask task : s.tasks()) {
            for (String uuid : task.cards()) {
                Tally t = cards.get(uuid);
                if (t != null) {
                    t.roll(at);
                    t.signal(Signal.SCHEDULER_LISTED);
                }
            }
        }
    }

    private static void count(Tally t, MetricValues v, int[] metrics, long at) {
        t.frame(at);
        for (int i : metrics) {
            if (!Double.isNaN(v.get(i))) {
                t.signal(i);
            }
        }
    }

    private Tally tally(Map<String, Tally> in, String key, int signals) {
        Tally t = in.get(key);
        if (t == null) {
            t = new Tally(signals, windowMs);
            in.put(key, t);
        }
        return t;
    }

    /** Forgets what has sent nothing for two windows: a card, node, task or queue that is gone. */
    private void prune(long at) {
        for (Map<String, Tally> m : List.of(cards, relays, tasks, queues)) {
            m.values().removeIf(t -> at - t.lastAt() > 2 * windowMs);
        }
    }

    /**
     * Per node of {@code fleet} that sent anything in the windows, the signals that arrived at {@code at}: card
     * signals of any of its cards by {@link Signal#index()}, and application metrics it relayed.
     */
    public Map<String, BitSet> signalsByNode(FleetState fleet, long at) {
        prune(at);
        Map<String, BitSet> out = new TreeMap<>();
        for (NodeState node : fleet.nodes()) {
            BitSet present = new BitSet(Signal.COUNT);
            for (CardState card : node.cards()) {
                Tally t = cards.get(card.uuid());
                if (t != null) {
                    t.roll(at);
                    for (int i = 0; i < Signal.COUNT; i++) {
                        if (i != Signal.PROCESSES_LISTED && t.count(i) > 0) {
                            present.set(i);
                        }
                    }
                }
            }
            Tally relay = relays.get(node.name());
            if (relay != null) {
                relay.roll(at);
                for (int i : APP_METRICS) {
                    if (relay.count(i) > 0) {
                        present.set(i);
                    }
                }
            }
            if (!present.isEmpty()) {
                out.put(node.name(), present);
            }
        }
        return out;
    }

    /** The names of the signals of these indexes, as {@link #signalsByNode} sets them. */
    public static List<String> names(BitSet signals) {
        List<String> out = new ArrayList<>();
        for (int i = signals.nextSetBit(0); i >= 0; i = signals.nextSetBit(i + 1)) {
            out.add(Signal.byIndex(i).name());
        }
        return out;
    }

    private static final class Group {
        final CoverageReport.Key key;
        final List<Tally> sampled = new ArrayList<>();
        final Set<String> nodes = new LinkedHashSet<>();
        int cards;

        Group(CoverageReport.Key key) {
            this.key = key;
        }
    }

    /** What arrives at {@code at}, by pool, card model and driver of {@code fleet}, and which of {@code rules} cannot fire. */
    public CoverageReport report(FleetState fleet, RuleSet rules, long at) {
        prune(at);
        Map<CoverageReport.Key, Group> groups = new TreeMap<>(Comparator.comparing(CoverageReport.Key::pool)
                .thenComparing(CoverageReport.Key::model).thenComparing(CoverageReport.Key::driver));
        for (NodeState node : fleet.nodes()) {
            String pool = orUnknown(node.label("labels.pool"));
            String driver = orUnknown(node.driver());
            for (CardState card : node.cards()) {
                String model = orUnknown(card.info() == null ? null : card.info().name());
                Group g = groups.computeIfAbsent(new CoverageReport.Key(pool, model, driver), Group::new);
                g.cards++;
                g.nodes.add(node.name());
                Tally t = cards.get(card.uuid());
                if (t != null) {
                    t.roll(at);
                    if (t.frames() > 0) {
                        g.sampled.add(t);
                    }
                }
            }
        }
        Map<Metric, List<CoverageReport.RuleRef>> readers = readers(rules);
        boolean anySched = false;
        for (Tally q : queues.values()) {
            q.roll(at);
            anySched |= q.frames() > 0;
        }
        List<CoverageReport.GroupCoverage> out = new ArrayList<>();
        for (Group g : groups.values()) {
            List<Tally> nodeRelays = new ArrayList<>();
            for (String n : g.nodes) {
                Tally r = relays.get(n);
                if (r != null) {
                    r.roll(at);
                    if (r.frames() > 0) {
                        nodeRelays.add(r);
                    }
                }
            }
            List<CoverageReport.LayerCoverage> layers = new ArrayList<>();
            layers.add(device(g, readers, at));
            layers.add(application(g, nodeRelays, readers, at));
            layers.add(scheduling(g, anySched, readers, at));
            layers.add(business(g, at));
            out.add(new CoverageReport.GroupCoverage(g.key, g.nodes.size(), g.cards, g.sampled.size(), layers));
        }
        return new CoverageReport(at, windowMs, out, scopes(tasks, APP_METRICS, at), scopes(queues, SCHED_METRICS, at));
    }

    /**
     * Each card of {@code node} at {@code at}: how many readings a second arrived, the signals they carried (share
     * of its readings), and the device signals that never came; with the application metrics the node relays.
     * Null for a node the fleet does not know.
     */
    public NodeCoverage node(FleetState fleet, String node, long at) {
        NodeState n = fleet.node(node);
        if (n == null) {
            return null;
        }
        prune(at);
        List<NodeCoverage.CardCoverage> out = new ArrayList<>();
        for (CardState card : n.cards()) {
            Tally t = cards.get(card.uuid());
            List<CoverageReport.SignalCoverage> present = new ArrayList<>();
            List<CoverageReport.Missing> missing = new ArrayList<>();
            double perSecond = 0;
            if (t != null) {
                t.roll(at);
                long span = t.spanMs(at);
                perSecond = span > 0 ? t.frames() * 1000.0 / span : 0;
                List<Tally> one = t.frames() > 0 ? List.of(t) : List.of();
                for (int i : CARD_METRICS) {
                    measure(Signal.of(Metric.of(i)), one, at, present, missing, null, null);
                }
                if (t.count(Signal.PROCESSES_LISTED) > 0) {
                    measure(Signal.PROCESS_MEMORY_SIGNAL, one, at, present, missing, null, null);
                }
                measure(Signal.SCHEDULER_SIGNAL, one, at, present, missing, null, null);
                measure(Signal.ATTRIBUTION_SIGNAL, one, at, present, missing, null, null);
            }
            out.add(new NodeCoverage.CardCoverage(card.uuid(), orUnknown(card.info() == null ? null
                    : card.info().name()), perSecond, present, missing.stream().map(CoverageReport.Missing::signal)
                    .toList()));
        }
        List<String> relayed = new ArrayList<>();
        Tally relay = relays.get(node);
        double appPerSecond = 0;
        if (relay != null) {
            relay.roll(at);
            long span = relay.spanMs(at);
            appPerSecond = span > 0 ? relay.frames() * 1000.0 / span : 0;
            for (int i : APP_METRICS) {
                if (relay.count(i) > 0) {
                    relayed.add(Metric.of(i).field());
                }
            }
        }
        return new NodeCoverage(node, orUnknown(n.label("labels.pool")), orUnknown(n.driver()), at, windowMs, out,
                appPerSecond, relayed);
    }

    private CoverageReport.LayerCoverage device(Group g, Map<Metric, List<CoverageReport.RuleRef>> readers, long at) {
        List<CoverageReport.SignalCoverage> present = new ArrayList<>();
        List<CoverageReport.Missing> missing = new ArrayList<>();
        for (int i : CARD_METRICS) {
            measure(Signal.of(Metric.of(i)), g.sampled, at, present, missing, readers.get(Metric.of(i)), null);
        }
        // per-process memory is judged only where some reading listed processes: an idle card lists none
        if (g.sampled.stream().anyMatch(t -> t.count(Signal.PROCESSES_LISTED) > 0)) {
            measure(Signal.PROCESS_MEMORY_SIGNAL, g.sampled.stream()
                    .filter(t -> t.count(Signal.PROCESSES_LISTED) > 0).toList(), at, present, missing, null, null);
        }
        return new CoverageReport.LayerCoverage(Layer.DEVICE, present, missing);
    }

    private CoverageReport.LayerCoverage application(Group g, List<Tally> nodeRelays,
                                                     Map<Metric, List<CoverageReport.RuleRef>> readers, long at) {
        List<CoverageReport.SignalCoverage> present = new ArrayList<>();
        List<CoverageReport.Missing> missing = new ArrayList<>();
        String reason = nodeRelays.isEmpty() ? Signal.NO_APP_SCRAPE : null;
        for (int i : APP_METRICS) {
            measureOver(Signal.of(Metric.of(i)), nodeRelays, g.nodes.size(), at, present, missing,
                    readers.get(Metric.of(i)), reason);
        }
        return new CoverageReport.LayerCoverage(Layer.APPLICATION, present, missing);
    }

    private CoverageReport.LayerCoverage scheduling(Group g, boolean anySched,
                                                    Map<Metric, List<CoverageReport.RuleRef>> readers, long at) {
        List<CoverageReport.SignalCoverage> present = new ArrayList<>();
        List<CoverageReport.Missing> missing = new ArrayList<>();
        String reason = anySched ? null : Signal.NO_SCHEDULER;
        List<Tally> reporting = queues.values().stream().filter(q -> q.frames() > 0).toList();
        for (int i : SCHED_METRICS) {
            measureOver(Signal.of(Metric.of(i)), reporting, reporting.size(), at, present, missing,
                    readers.get(Metric.of(i)), reason);
        }
        measure(Signal.SCHEDULER_SIGNAL, g.sampled, at, present, missing, null, reason);
        return new CoverageReport.LayerCoverage(Layer.SCHEDULING, present, missing);
    }

    private CoverageReport.LayerCoverage business(Group g, long at) {
        List<CoverageReport.SignalCoverage> present = new ArrayList<>();
        List<CoverageReport.Missing> missing = new ArrayList<>();
        measure(Signal.ATTRIBUTION_SIGNAL, g.sampled, at, present, missing, null, null);
        return new CoverageReport.LayerCoverage(Layer.BUSINESS, present, missing);
    }

    /** Signal {@code s} over members {@code sampled}, the members that sent anything. */
    private static void measure(Signal s, List<Tally> sampled, long at, List<CoverageReport.SignalCoverage> present,
                                List<CoverageReport.Missing> missing, List<CoverageReport.RuleRef> rules,
                                String reason) {
        measureOver(s, sampled, sampled.size(), at, present, missing, rules, reason);
    }

    /**
     * Signal {@code s} over {@code members} of {@code of} in all: the share of them that sent it, how often per
     * second each did on average, and the share of their frames that carried it. Missing when none sent it.
     */
    private static void measureOver(Signal s, List<Tally> members, int of, long at,
                                    List<CoverageReport.SignalCoverage> present, List<CoverageReport.Missing> missing,
                                    List<CoverageReport.RuleRef> rules, String reason) {
        int reporting = 0;
        double perSecond = 0;
        long carried = 0;
        long frames = 0;
        for (Tally t : members) {
            int n = t.count(s.index());
            frames += t.frames();
            carried += n;
            if (n > 0) {
                reporting++;
                long span = t.spanMs(at);
                perSecond += span > 0 ? n * 1000.0 / span : 0;
            }
        }
        if (reporting == 0) {
            if (of > 0 || reason != null) {
                missing.add(new CoverageReport.Missing(s.name(), reason != null ? reason : s.reason(),
                        rules == null ? List.of() : rules));
            }
            return;
        }
        present.add(new CoverageReport.SignalCoverage(s.name(), (double) reporting / of, perSecond / reporting,
                frames == 0 ? Double.NaN : Math.min(1, (double) carried / frames)));
    }

    private static Map<Metric, List<CoverageReport.RuleRef>> readers(RuleSet rules) {
        Map<Metric, List<CoverageReport.RuleRef>> out = new LinkedHashMap<>();
        for (Rule r : rules.rules()) {
            Set<Metric> reads = RuleReads.of(r);
            for (Metric m : reads) {
                out.computeIfAbsent(m, k -> new ArrayList<>())
                        .add(new CoverageReport.RuleRef(r.name(), r.layer().key(), r.scope().key()));
            }
        }
        return out;
    }

    private static List<CoverageReport.ScopeCoverage> scopes(Map<String, Tally> in, int[] metrics, long at) {
        List<CoverageReport.ScopeCoverage> out = new ArrayList<>();
        for (Map.Entry<String, Tally> e : new TreeMap<>(in).entrySet()) {
            Tally t = e.getValue();
            t.roll(at);
            if (t.frames() == 0) {
                continue;
            }
            List<String> signals = new ArrayList<>();
            for (int i : metrics) {
                if (t.count(i) > 0) {
                    signals.add(Metric.of(i).field());
                }
            }
            long span = t.spanMs(at);
            out.add(new CoverageReport.ScopeCoverage(e.getKey(), span > 0 ? t.frames() * 1000.0 / span : 0,
                    signals));
        }
        return out;
    }

    private static String orUnknown(String s) {
        return s == null || s.isBlank() ? "unknown" : s;
    }
}
