package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.scenario.Incident;
import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A simulated fleet playing out a {@link Scenario}. Readings are a function of the time since {@code startMs}
 * and the scenario's seed, so a caller that steps time exactly gets the same run every time. Frames carry seq 0;
 * the uplink numbers them. Not thread-safe: one owner calls it.
 */
public final class SimFleet {
    private static final String[][] TRAINING = {
            {"train-llama-%d", "team-llm", "chat-pretrain"},
            {"finetune-qwen-%d", "team-llm", "chat-sft"},
            {"train-vit-%d", "team-vision", "image-gen"}};

    private final Scenario scenario;
    private final long startMs;
    private final Map<String, SimNode> nodes = new LinkedHashMap<>();

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
            List<Incident> mine = scenario.incidents().stream().filter(x -> x.node().equals(name)).toList();
            nodes.put(name, new SimNode(name, startMs, scenario.model(), workloads, scenario.labelsOf(name), mine, random));
        }
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

    /** The node's hello: its cards, labels and the bootId it keeps for the whole run. */
    public Hello hello(String node) {
        return node(node).hello();
    }

    /** The node's readings at {@code nowMs}; time before the last call is not replayed. */
    public Sample sample(String node, long nowMs) {
        return node(node).sample(elapsed(nowMs));
    }

    /** Events that happened on the node since the last call, up to {@code nowMs}, oldest first. */
    public List<Event> eventsDue(String node, long nowMs) {
        return node(node).eventsDue(elapsed(nowMs));
    }

    /** Whether a node-silent incident holds the node at {@code nowMs}. */
    public boolean silent(String node, long nowMs) {
        return node(node).silent(elapsed(nowMs));
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
