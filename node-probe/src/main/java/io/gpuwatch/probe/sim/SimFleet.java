package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.scenario.Incident;
import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.SchedTask;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * A simulated fleet playing out a {@link Scenario}. Readings are a function of the time since {@code startMs}
 * and the scenario's seed, so a caller that steps time exactly gets the same run every time. Frames carry seq 0;
 * the uplink numbers them. With the scenario's scheduler, a further producer ({@link #producers()}) reports the
 * queues. Not thread-safe: one owner calls it.
 */
public final class SimFleet {
    private static final String[][] TRAINING = {
            {"train-llama-%d", "team-llm", "chat-pretrain"},
            {"finetune-qwen-%d", "team-llm", "chat-sft"},
            {"train-vit-%d", "team-vision", "image-gen"}};

    private final Scenario scenario;
    private final long startMs;
    private final Map<String, SimNode> nodes = new LinkedHashMap<>();
    private final Set<String> services = new HashSet<>();
    private final SimScheduler scheduler;
    private final Hello schedulerHello;

    public SimFleet(Scenario scenario, long startMs) {
        this.scenario = scenario;
        this.startMs = startMs;
        SplittableRandom root = new SplittableRandom(scenario.seed());
        Map<Integer, Workload> jobs = new HashMap<>();
        List<String> names = scenario.nodeNames();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            SplittableRandom random = root.split();
            List<Workload> workloads = i % 4 == 3
                    ? inference(scenario.cardsPerNode(), random)
                    : training(jobs, (i / 4) * 2 + (i % 4 == 2 ? 1 : 0), scenario.cardsPerNode(), root);
            workloads.stream().filter(Workload::serves).forEach(w -> services.add(w.task()));
            List<Incident> mine = scenario.incidents().stream().filter(x -> name.equals(x.node())).toList();
            nodes.put(name, new SimNode(name, startMs, scenario.model(), workloads, scenario.labelsOf(name), mine, random));
        }
        if (scenario.scheduler()) {
            scheduler = new SimScheduler(startMs, scenario.seed(), scenario.nodes() * scenario.cardsPerNode(),
                    scenario.incidents(), this::running);
            schedulerHello = new Hello(Frame.VERSION, SimScheduler.PRODUCER,
                    new UUID(scenario.seed(), 1).toString(), SimNode.PROBE, null, null, scenario.labels(),
                    List.of());
        } else {
            scheduler = null;
            schedulerHello = null;
        }
    }

    /** What the fleet runs now, as the scheduler sees it: each task with its owner, business and cards. */
    private Map<String, SchedTask> running() {
        Map<String, SchedTask> out = new LinkedHashMap<>();
        for (SimNode n : nodes.values()) {
            for (int c = 0; c < scenario.cardsPerNode(); c++) {
                SimProcess p = n.process(c);
                if (p == null) {
                    continue;
                }
                SchedTask t = out.get(p.task);
                List<String> cards = new ArrayList<>(t == null ? List.of() : t.cards());
                cards.add(n.uuid(c));
                out.put(p.task, new SchedTask(p.task, p.owner, p.business, cards, "running", cards.size()));
            }
        }
        return out;
    }

    /** Nodes 0–1, 4–5, … share a two-node training job; nodes 2, 6, … run one alone. */
    private static List<Workload> training(Map<Integer, Workload> jobs, int job, int cards, SplittableRandom root) {
        Workload w = jobs.computeIfAbsent(job, j -> {
            String[] t = TRAINING[j % TRAINING.length];
            return new Workload(String.format(t[0], root.nextInt(1000, 10_000)), t[1], t[2],
                    root.nextDouble(90, 96), 0, 1, 0, root.nextDouble(0.70, 0.80), root.nextDouble(0.45, 0.55),
                    root.nextDouble(0.93, 1.0), root.nextDouble(0.80, 0.88), root.nextDouble(0.36, 0.44),
                    root.nextDouble(0.62, 0.70), 2400, root.nextLong(20_000, 2_000_000));
        });
        List<Workload> out = new ArrayList<>(cards);
        for (int c = 0; c < cards; c++) {
            out.add(w);
        }
        return out;
    }

    /** Every fourth node serves: a chat model on half its cards, embedding and reranking on a quarter each. */
    private static List<Workload> inference(int cards, SplittableRandom random) {
        Workload chat = service("svc-chat-70b", "team-serving", "chat", 76, 12, 0.90, 0.75, random);
        Workload embed = service("svc-embed-8b", "team-search", "search", 70, 9, 0.42, 0.65, random);
        Workload rerank = service("svc-rerank-2b", "team-search", "search", 68, 7, 0.28, 0.60, random);
        List<Workload> out = new ArrayList<>(cards);
        for (int c = 0; c < cards; c++) {
            int quarter = c * 4 / cards;
            out.add(quarter < 2 ? chat : quarter == 2 ? embed : rerank);
        }
        return out;
    }

    private static Workload service(String task, String owner, String business, double base, double swing,
                                    double mem, double memRatio, SplittableRandom random) {
        return new Workload(task, owner, business, base, swing, random.nextLong(60_000, 120_000),
                random.nextDouble(0, 2 * Math.PI), mem, memRatio, random.nextDouble(0.80, 0.90),
                random.nextDouble(0.55, 0.70), random.nextDouble(0.30, 0.40), random.nextDouble(0.40, 0.50), 900,
                random.nextLong(20_000, 2_000_000));
    }

    public Scenario scenario() {
        return scenario;
    }

    /** Epoch ms at which the scenario's time 0 falls. */
    public long startMs() {
        return startMs;
    }

    /** Node names in index order. */
    public List<String> nodes() {
        return List.copyOf(nodes.keySet());
    }

    /** The producers: the nodes in index order, then the scheduler when the scenario has one. */
    public List<String> producers() {
        List<String> out = new ArrayList<>(nodes.keySet());
        if (scheduler != null) {
            out.add(SimScheduler.PRODUCER);
        }
        return out;
    }

    /** The producer's hello: a node's cards, labels and bootId (a new one after a node-reboot), or the scheduler's. */
    public Hello hello(String producer) {
        return scheduler != null && producer.equals(SimScheduler.PRODUCER) ? schedulerHello : node(producer).hello();
    }

    /**
     * What the producer sends at {@code nowMs}: a node's due events, its sample and the app readings of its
     * inference services; the scheduler's sched frames. Call it only for a producer that is not silent.
     */
    public List<Frame> frames(String producer, long nowMs) {
        long elapsed = elapsed(nowMs);
        if (scheduler != null && producer.equals(SimScheduler.PRODUCER)) {
            return List.copyOf(scheduler.frames(elapsed, services::contains));
        }
        SimNode n = node(producer);
        List<Frame> out = new ArrayList<>(n.eventsDue(elapsed));
        out.add(n.sample(elapsed));
        out.addAll(n.apps(elapsed));
        return out;
    }

    /** Whether a probe-disconnect incident holds the node at {@code nowMs}: it samples, but reaches no gateway. */
    public boolean disconnected(String producer, long nowMs) {
        return nodes.containsKey(producer) && node(producer).disconnected(elapsed(nowMs));
    }

    /** The uuid of a node's card. */
    public String uuid(String node, int card) {
        return node(node).uuid(card);
    }

    /** The task on a node's card now, with its business, or null when the card is empty or lost. */
    public String[] task(String node, int card) {
        SimProcess p = node(node).process(card);
        return p == null ? null : new String[]{p.task, p.business};
    }

    /** The node's readings at {@code nowMs}; time before the last call is not replayed. */
    public Sample sample(String node, long nowMs) {
        return node(node).sample(elapsed(nowMs));
    }

    /** Events that happened on the node since the last call, up to {@code nowMs}, oldest first. */
    public List<Event> eventsDue(String node, long nowMs) {
        return node(node).eventsDue(elapsed(nowMs));
    }

    /** Whether a node-silent incident or a node-reboot holds the producer at {@code nowMs}. */
    public boolean silent(String producer, long nowMs) {
        return nodes.containsKey(producer) && node(producer).silent(elapsed(nowMs));
    }

    /** Whether the scenario's duration has passed; never for a scenario without one. */
    public boolean finished(long nowMs) {
        return scenario.duration() != null && elapsed(nowMs) >= scenario.duration().toMillis();
    }

    private long elapsed(long nowMs) {
        return Math.max(0, nowMs - startMs);
    }

    private SimNode node(String name) {
        SimNode n = nodes.get(name);
        if (n == null) {
            throw new IllegalArgumentException("no simulated node '" + name + "'; nodes are " + nodes.keySet());
        }
        return n;
    }
}
