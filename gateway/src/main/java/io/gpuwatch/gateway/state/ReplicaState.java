package io.gpuwatch.gateway.state;

import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.rules.scope.BaselineStat;
import io.gpuwatch.rules.scope.PeerStat;

import java.util.Map;

/**
 * One replica of a task, read by replica-scope rules: the application readings one node relays for the task (its
 * servers of that task, which step together) in windows of their own, and the task's cards on that node pooled.
 * A service pools its replicas in task scope, where one stuck replica of several is a small dent; here it is whole.
 */
public final class ReplicaState extends CardPool {
    private final TaskState task;
    private final NodeState node;
    private Map<String, String> identity;
    private final String instanceKey;

    ReplicaState(TaskState task, NodeState node) {
        this.task = task;
        this.node = node;
        this.identity = Map.of("task", task.name(), "node", node.name());
        // built once: engines look alerts up by it on every evaluation
        this.instanceKey = key(task.name(), node.name());
    }

    /** The task, its business once known (as a task's own identity has it) and the node. */
    private Map<String, String> identityNow() {
        String business = task.business();
        if (business != null && !business.equals(identity.get("business"))) {
            identity = Map.of("task", task.name(), "business", business, "node", node.name());
        }
        return identity;
    }

    /** The engine key of the replica of task {@code task} on node {@code node}. */
    public static String key(String task, String node) {
        return "replica/" + task + "/" + node;
    }

    /** The key a rule engine tracks this replica's alert states under. */
    public String instanceKey() {
        return instanceKey;
    }

    public NodeState node() {
        return node;
    }

    /** The task's model: a replica serves the same one. */
    @Override
    public double flopsPerToken() {
        return task.flopsPerToken();
    }

    @Override
    public double flopsPerSample() {
        return task.flopsPerSample();
    }

    /** The peak of the task's cards on this node. */
    @Override
    public double peakFlops() {
        return task.model() == null ? Double.NaN : peakFlops(task.model().precision());
    }

    /** Application readings of the replica at {@code ts}. */
    void app(long ts, MetricValues values) {
        lastHeardAt = Math.max(lastHeardAt, ts);
        appendApp(ts, values);
    }

    /** What a checkpoint keeps of the replica: its own windows. */
    ScopeImage image() {
        return new ScopeImage(ScopeImage.Kind.REPLICA, task.name(), node.name(), null, null, null, app.images());
    }

    /** Takes back a checkpoint's windows, as heard at {@code at}; returns how many it could not take. */
    int restore(ScopeImage image, long at) {
        lastHeardAt = Math.max(lastHeardAt, at);
        return app.restore(image.windows());
    }

    /** No app frame for longer than the grace period: the replica is gone (moved, scaled in, or its node is). */
    boolean expired(long at) {
        return at - lastHeardAt > FleetState.MEMBERSHIP_GRACE_MS;
    }

    /**
     * Sets the evaluation time for the replica, its windows and its cards (the task's cards on the node, taken
     * again at each instant since the task's membership changes); the task's must be set first.
     */
    public ReplicaState at(long nowMs) {
        this.now = nowMs;
        app.at(nowMs);
        members.clear();
        for (CardState card : task.cards()) {
            if (card.node() == node) {
                members.add(card);
                card.at(nowMs);
            }
        }
        return this;
    }

    long retainedBytes() {
        return app.retainedBytes();
    }

    @Override
    public String label(String key) {
        if (key.equals("node")) {
            return node.name();
        }
        if (key.startsWith("labels.")) {
            return node.label(key);
        }
        return task.label(key);
    }

    @Override
    public Map<String, String> identity() {
        return identityNow();
    }

    /** The labels of the node's last hello. */
    @Override
    public Map<String, String> context() {
        return node.context();
    }

    /** The business whose baselines the replica's rules read: its task's. */
    public String baselineKey() {
        return task.baselineKey();
    }

    @Override
    public double baseline(int seriesId, BaselineStat stat, double k) {
        return task.baseline(seriesId, stat, k, now, series(seriesId));
    }

    /** Against the task's other replicas. */
    @Override
    public double peers(int seriesId, long windowMs, PeerStat stat) {
        return task.replicaPeers(seriesId, windowMs, now).stat(this, stat);
    }
}
