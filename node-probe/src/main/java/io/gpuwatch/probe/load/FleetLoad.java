package io.gpuwatch.probe.load;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * A simulated fleet that loads a gateway: one real WebSocket per node speaking protocol v1, samples with every card
 * metric each interval, app frames, and XID 79 events at scripted times. Its nodes are split over a few event loops
 * ({@link LoadSender}s) and come online one after another over the plan's ramp-up; it stops sampling by itself when
 * the plan's duration is over. Given several gateways (of one cluster) it spreads the nodes' first connections over
 * them in turn, and each node fails over along the list from there.
 */
public final class FleetLoad {
    /** Time between starting and the first node's first sample, for the senders to deploy. */
    private static final long LEAD_MS = 200;

    private final Vertx vertx;
    private final LoadPlan plan;
    private final List<LoadTarget> targets;
    private final LongSupplier clock;
    private final int eventLoops;
    private final FrameTemplates templates;
    private final String bootId = UUID.randomUUID().toString();
    private final List<LoadSender> senders = new ArrayList<>();
    private final List<String> deployments = new CopyOnWriteArrayList<>();
    private final List<XidSent> xids = new CopyOnWriteArrayList<>();
    private long startMs = -1;

    /**
     * @param targets the gateways; node {@code i} connects to {@code targets[i % size]} first
     * @param eventLoops how many senders to spread the nodes over; the Vert.x instance should have as many event loops
     * @param salt mixed into the card uuids (see {@link #uuid(int, int)})
     */
    public FleetLoad(Vertx vertx, LoadPlan plan, List<LoadTarget> targets, int eventLoops, LongSupplier clock,
                     long salt) {
        if (eventLoops < 1) {
            throw new IllegalArgumentException("--event-loops must be at least 1, got " + eventLoops);
        }
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("a fleet load needs at least one gateway");
        }
        this.vertx = vertx;
        this.plan = plan;
        this.targets = List.copyOf(targets);
        this.clock = clock;
        this.eventLoops = Math.min(eventLoops, plan.nodes());
        this.templates = new FrameTemplates(plan, salt);
    }

    public LoadPlan plan() {
        return plan;
    }

    /** The uuid of a card of a node, as this run's hellos list it. */
    public String uuid(int node, int card) {
        return templates.uuid(node, card);
    }

    /** Epoch ms the run started at (its first sample is due then), -1 before {@link #start()}. */
    public long startMs() {
        return startMs;
    }

    /** The end of sampling: {@link #startMs()} plus the plan's duration. */
    public long endMs() {
        return startMs + plan.durationMs();
    }

    /** Deploys the senders and schedules the XIDs; nodes connect one after another over the ramp-up. */
    public Future<Void> start() {
        if (startMs >= 0) {
            return Future.failedFuture(new IllegalStateException("this fleet load was already started"));
        }
        startMs = clock.getAsLong() + LEAD_MS;
        List<List<NodeTexts>> slices = new ArrayList<>();
        List<long[]> dues = new ArrayList<>();
        List<int[]> firstTargets = new ArrayList<>();
        for (int s = 0; s < eventLoops; s++) {
            int count = (plan.nodes() - s + eventLoops - 1) / eventLoops;
            slices.add(new ArrayList<>(count));
            dues.add(new long[count]);
            firstTargets.add(new int[count]);
        }
        for (int i = 0; i < plan.nodes(); i++) {
            int s = i % eventLoops;
            int local = slices.get(s).size();
            dues.get(s)[local] = startMs + plan.onlineAtMs(i);
            firstTargets.get(s)[local] = i % targets.size();
            slices.get(s).add(templates.node(i, bootId));
        }
        List<Future<String>> deployed = new ArrayList<>();
        for (int s = 0; s < eventLoops; s++) {
            LoadSender sender = new LoadSender(plan, targets, templates, slices.get(s), dues.get(s), firstTargets.get(s),
                    startMs, clock, 31L * s + 7);
            senders.add(sender);
            deployed.add(vertx.deployVerticle(sender).onSuccess(deployments::add));
        }
        return Future.all(deployed).map(v -> {
            for (int k = 0; k < plan.xidAtMs().size(); k++) {
                int node = plan.xidNode(k);
                int card = plan.xidCard(k);
                long delay = Math.max(1, startMs + plan.xidAtMs().get(k) - clock.getAsLong());
                LoadSender sender = senders.get(node % eventLoops);
                vertx.setTimer(delay, id -> sender.sendXid(node / eventLoops, card).onSuccess(xids::add));
            }
            return null;
        });
    }

    /** The counters of all senders together, with their event-loop threads' CPU time; starts a new lag window. */
    public Future<LoadStats> stats() {
        List<Future<LoadStats>> parts = new ArrayList<>();
        for (LoadSender s : senders) {
            parts.add(s.stats());
        }
        return Future.all(parts).map(all -> {
            LoadStats sum = LoadStats.ZERO;
            for (int i = 0; i < parts.size(); i++) {
                sum = sum.plus(all.resultAt(i));
            }
            Set<Long> threads = new HashSet<>();
            long cpu = 0;
            for (LoadSender s : senders) {
                // two senders on one event loop would count its CPU twice
                if (threads.add(s.threadId())) {
                    cpu += LoadSender.cpuNanos(s.threadId());
                }
            }
            return new LoadStats(sum.nodes(), sum.connected(), sum.frames(), sum.sampleFrames(), sum.appFrames(),
                    sum.events(), sum.samples(), sum.acks(), sum.acked(), sum.created(), sum.reconnects(), sum.bytes(),
                    sum.errors(), sum.dropped(), sum.maxLagMs(), sum.windowLagMs(), cpu);
        });
    }

    /** The XIDs sent so far, in the order they went out. */
    public List<XidSent> xids() {
        return List.copyOf(xids);
    }

    /** Closes every node's WebSocket with 1000 and stops the senders. */
    public Future<Void> close() {
        List<Future<Void>> undeployed = new ArrayList<>();
        for (String id : deployments) {
            undeployed.add(vertx.undeploy(id));
        }
        deployments.clear();
        return Future.join(undeployed).mapEmpty();
    }
}
