package io.gpuwatch.probe.sched.kubernetes;

import io.gpuwatch.probe.attribution.Attribution;
import io.gpuwatch.probe.attribution.PodLabelKeys;
import io.gpuwatch.probe.sched.JsonInput;
import io.gpuwatch.probe.sched.ModelDeclaration;
import io.gpuwatch.probe.sched.QueueReading;
import io.gpuwatch.probe.sched.SchedInputError;
import io.gpuwatch.protocol.SchedTask;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the API server said about the GPU part of a cluster, kept current by lists and watch events: pods that
 * ask for {@code nvidia.com/gpu}, nodes that offer it, and the preemptions and evictions of those pods. Read as
 * one queue (the pool). Lives on one Vert.x context.
 */
public final class KubeCluster {
    /** The extended resource of whole NVIDIA cards. */
    public static final String GPU = "nvidia.com/gpu";
    /** Event reasons that mean a pod lost its node to make room or because of the node. */
    static final Set<String> PREEMPTION_REASONS = Set.of("Preempted", "Evicted", "TaintManagerEviction");
    /** How long a deleted GPU pod is remembered, so that its preemption event, often later, still counts. */
    static final long FORGET_PODS_MS = 15 * 60_000L;

    private final String pool;
    private final Map<String, Pod> pods = new LinkedHashMap<>();
    private final Map<String, Node> nodes = new TreeMap<>();
    private final Map<String, Long> gonePods = new HashMap<>();
    // namespace/name → a GPU pod the watch saw end, and when: reported with its outcome while remembered
    private final Map<String, Ended> endedPods = new LinkedHashMap<>();
    // event uid → the count last seen: the API folds repeats of an event into one object with a growing count
    private final Map<String, Long> eventCounts = new HashMap<>();
    private long preemptions;

    /**
     * A GPU pod: its key is namespace/name; {@code reason} is the status reason (Evicted, …), {@code model} the
     * model its annotations declare ({@link #MODEL_ANNOTATIONS}), null when none.
     */
    record Pod(String key, String node, String phase, int gpus, long createdMs, Attribution who, String reason,
               SchedTask.Model model) {
    }

    /** A pod that succeeded or failed, and when the watch said so. */
    private record Ended(Pod pod, long atMs) {
    }

    /** Annotations a pod declares its model with: parameters, workload, precision, FLOPs per sample. */
    static final List<String> MODEL_ANNOTATIONS = List.of("gpuwatch.io/model-params", "gpuwatch.io/workload",
            "gpuwatch.io/precision", "gpuwatch.io/flops-per-sample");
    /** Status reasons of a failed pod that mean it was pushed off its node, not that it failed. */
    private static final Set<String> PUSHED_OFF = Set.of("Evicted", "Preempting", "Preempted", "Shutdown",
            "Terminated", "NodeShutdown");

    record Node(String name, int allocatable, boolean schedulable, String reason) {
    }

    public KubeCluster(String pool) {
        this.pool = pool;
    }

    /** Replaces every pod with those of a PodList (a fresh list after a watch expired). */
    public void listPods(JsonObject list, JsonInput in, long nowMs) throws SchedInputError {
        Map<String, Pod> fresh = new LinkedHashMap<>();
        for (JsonInput.Item item : in.items(list, "", "items")) {
            Pod p = pod(item.value(), item.path(), in);
            if (p != null) {
                fresh.put(p.key(), p);
            }
        }
        pods.keySet().stream().filter(k -> !fresh.containsKey(k)).forEach(k -> gonePods.put(k, nowMs));
        pods.clear();
        pods.putAll(fresh);
    }

    /** Replaces every node with those of a NodeList. */
    public void listNodes(JsonObject list, JsonInput in) throws SchedInputError {
        nodes.clear();
        for (JsonInput.Item item : in.items(list, "", "items")) {
            Node n = node(item.value(), item.path(), in);
            if (n != null) {
                nodes.put(n.name(), n);
            }
        }
    }

    /** Counts the preemptions and evictions of an EventList (events already counted are not counted again). */
    public void listEvents(JsonObject list, JsonInput in) throws SchedInputError {
        for (JsonInput.Item item : in.items(list, "", "items")) {
            event(item.value(), item.path(), in);
        }
    }

    /** One watch event of pods ({@code ADDED}, {@code MODIFIED}, {@code DELETED}). */
    public void podEvent(String type, JsonObject pod, String at, JsonInput in, long nowMs) throws SchedInputError {
        Pod p = pod(pod, at, in);
        String key = key(pod, at, in);
        if (type.equals("DELETED") || p == null || p.phase().equals("Succeeded") || p.phase().equals("Failed")) {
            if (pods.remove(key) != null) {
                gonePods.put(key, nowMs);
            }
            if (p != null && !type.equals("DELETED") && (p.phase().equals("Succeeded") || p.phase().equals("Failed"))
                    && !endedPods.containsKey(key)) {
                endedPods.put(key, new Ended(p, nowMs));
            }
            return;
        }
        pods.put(key, p);
    }

    /** One watch event of nodes. */
    public void nodeEvent(String type, JsonObject node, String at, JsonInput in) throws SchedInputError {
        Node n = node(node, at, in);
        String name = in.requiredString(metadata(node, at, in), JsonInput.join(at, "metadata"), "name");
        if (type.equals("DELETED") || n == null) {
            nodes.remove(name);
        } else {
            nodes.put(name, n);
        }
    }

    /** One watch event of core/v1 Events. */
    public void eventEvent(String type, JsonObject event, String at, JsonInput in) throws SchedInputError {
        if (!type.equals("DELETED")) {
            event(event, at, in);
        }
    }

    /** The pool now. */
    public QueueReading reading(long nowMs) {
        gonePods.values().removeIf(at -> nowMs - at > FORGET_PODS_MS);
        endedPods.values().removeIf(e -> nowMs - e.atMs() > FORGET_PODS_MS);
        Map<String, Integer> allocated = new HashMap<>();
        List<QueueReading.Job> jobs = new ArrayList<>();
        for (Pod p : pods.values()) {
            boolean pending = p.node() == null;
            if (!pending) {
                allocated.merge(p.node(), p.gpus(), Integer::sum);
            }
            String state = pending ? "pending" : p.phase().equals("Running") ? "running"
                    : p.phase().toLowerCase(Locale.ROOT);
            jobs.add(new QueueReading.Job(p.who().task(), p.who().owner(), p.who().business(), state, pending,
                    p.gpus(), 1, p.createdMs(), List.of(), null, p.model()));
        }
        for (Ended e : endedPods.values()) {
            Pod p = e.pod();
            String outcome = p.phase().equals("Succeeded") ? "succeeded"
                    : p.reason() != null && PUSHED_OFF.contains(p.reason()) ? "preempted" : "failed";
            jobs.add(new QueueReading.Job(p.who().task(), p.who().owner(), p.who().business(),
                    p.phase().toLowerCase(Locale.ROOT), false, p.gpus(), 1, p.createdMs(), List.of(), outcome,
                    p.model()));
        }
        List<QueueReading.NodeCards> cards = new ArrayList<>();
        for (Node n : nodes.values()) {
            cards.add(new QueueReading.NodeCards(n.name(), n.allocatable(), allocated.getOrDefault(n.name(), 0),
                    n.schedulable(), n.reason()));
        }
        return new QueueReading(pool, jobs, cards, preemptions, -1);
    }

    private Pod pod(JsonObject pod, String at, JsonInput in) throws SchedInputError {
        String specAt = JsonInput.join(at, "spec");
        JsonObject spec = in.object(pod, at, "spec");
        if (spec == null) {
            throw in.error(specAt, "missing");
        }
        int gpus = 0;
        for (JsonInput.Item c : in.items(spec, specAt, "containers")) {
            gpus += gpus(c.value(), c.path(), in);
        }
        if (gpus == 0) {
            return null;
        }
        JsonObject meta = metadata(pod, at, in);
        String metaAt = JsonInput.join(at, "metadata");
        JsonObject status = in.object(pod, at, "status");
        String phase = status == null ? null : in.string(status, JsonInput.join(at, "status"), "phase");
        String node = in.string(spec, specAt, "nodeName");
        Map<String, String> labels = new HashMap<>();
        JsonObject l = in.object(meta, metaAt, "labels");
        if (l != null) {
            for (String k : l.fieldNames()) {
                String v = in.string(l, JsonInput.join(metaAt, "labels"), k);
                labels.put(k, v);
            }
        }
        String key = key(pod, at, in);
        String namespace = in.string(meta, metaAt, "namespace");
        Attribution who = PodLabelKeys.DEFAULT.read(labels)
                .orElse(new Attribution(key, namespace, null));
        String reason = status == null ? null : in.string(status, JsonInput.join(at, "status"), "reason");
        return new Pod(key, node == null || node.isEmpty() ? null : node, phase == null ? "Pending" : phase, gpus,
                time(in.string(meta, metaAt, "creationTimestamp"), JsonInput.join(metaAt, "creationTimestamp"), in),
                who, reason, model(in.object(meta, metaAt, "annotations")));
    }

    /** The model a pod's annotations declare; null without one or with a value that is not valid. */
    private static SchedTask.Model model(JsonObject annotations) {
        if (annotations == null) {
            return null;
        }
        String[] v = new String[MODEL_ANNOTATIONS.size()];
        for (int i = 0; i < v.length; i++) {
            Object o = annotations.getValue(MODEL_ANNOTATIONS.get(i));
            v[i] = o instanceof String str ? str : null;
        }
        return ModelDeclaration.of(v[0], v[1], v[2], v[3]);
    }

    /** Whole cards a container asks for: its limit (extended resources are not overcommitted), else its request. */
    private static int gpus(JsonObject container, String at, JsonInput in) throws SchedInputError {
        JsonObject resources = in.object(container, at, "resources");
        if (resources == null) {
            return 0;
        }
        String rAt = JsonInput.join(at, "resources");
        for (String kind : List.of("limits", "requests")) {
            JsonObject q = in.object(resources, rAt, kind);
            if (q != null && q.getValue(GPU) != null) {
                return quantity(q, JsonInput.join(rAt, kind), in);
            }
        }
        return 0;
    }

    /** A resource quantity of whole cards: a string ("8") as the API writes it, or a number. */
    private static int quantity(JsonObject q, String at, JsonInput in) throws SchedInputError {
        Object v = q.getValue(GPU);
        String text = String.valueOf(v);
        if (v instanceof Number n) {
            return n.intValue();
        }
        if (text.matches("\\d{1,6}")) {
            return Integer.parseInt(text);
        }
        throw in.error(at + "[\"" + GPU + "\"]", "expected a whole number of cards, got " + JsonInput.shown(v));
    }

    private Node node(JsonObject node, String at, JsonInput in) throws SchedInputError {
        JsonObject meta = metadata(node, at, in);
        String name = in.requiredString(meta, JsonInput.join(at, "metadata"), "name");
        JsonObject status = in.object(node, at, "status");
        String statusAt = JsonInput.join(at, "status");
        JsonObject allocatable = status == null ? null : in.object(status, statusAt, "allocatable");
        int gpus = allocatable == null || allocatable.getValue(GPU) == null ? 0
                : quantity(allocatable, JsonInput.join(statusAt, "allocatable"), in);
        if (gpus == 0) {
            return null;
        }
        JsonObject spec = in.object(node, at, "spec");
        if (spec != null && Boolean.TRUE.equals(spec.getValue("unschedulable"))) {
            return new Node(name, gpus, false, "cordoned");
        }
        for (JsonInput.Item c : status == null ? List.<JsonInput.Item>of() : in.items(status, statusAt, "conditions")) {
            if ("Ready".equals(in.string(c.value(), c.path(), "type"))
                    && !"True".equals(in.string(c.value(), c.path(), "status"))) {
                String why = in.string(c.value(), c.path(), "message");
                return new Node(name, gpus, false, "NotReady" + (why == null ? "" : ": " + why));
            }
        }
        return new Node(name, gpus, true, null);
    }

    private void event(JsonObject event, String at, JsonInput in) throws SchedInputError {
        String reason = in.string(event, at, "reason");
        if (reason == null || !PREEMPTION_REASONS.contains(reason)) {
            return;
        }
        JsonObject involved = in.object(event, at, "involvedObject");
        if (involved == null || !"Pod".equals(in.string(involved, JsonInput.join(at, "involvedObject"), "kind"))) {
            return;
        }
        String objAt = JsonInput.join(at, "involvedObject");
        String pod = in.string(involved, objAt, "namespace") + "/" + in.string(involved, objAt, "name");
        if (!pods.containsKey(pod) && !gonePods.containsKey(pod)) {
            return; // not a GPU pod
        }
        String uid = in.string(metadata(event, at, in), JsonInput.join(at, "metadata"), "uid");
        double count = in.number(event, at, "count");
        JsonObject series = in.object(event, at, "series");
        if (series != null) {
            count = Math.max(Double.isNaN(count) ? 0 : count, in.number(series, JsonInput.join(at, "series"), "count"));
        }
        long seen = Double.isNaN(count) || count < 1 ? 1 : (long) count;
        Long before = eventCounts.put(uid != null ? uid : pod + "/" + reason, seen);
        preemptions += Math.max(0, seen - (before == null ? 0 : before));
    }

    private static String key(JsonObject o, String at, JsonInput in) throws SchedInputError {
        JsonObject meta = metadata(o, at, in);
        String metaAt = JsonInput.join(at, "metadata");
        return in.string(meta, metaAt, "namespace") + "/" + in.requiredString(meta, metaAt, "name");
    }

    private static JsonObject metadata(JsonObject o, String at, JsonInput in) throws SchedInputError {
        JsonObject meta = in.object(o, at, "metadata");
        if (meta == null) {
            throw in.error(JsonInput.join(at, "metadata"), "missing");
        }
        return meta;
    }

    private static long time(String rfc3339, String at, JsonInput in) throws SchedInputError {
        if (rfc3339 == null) {
            return 0;
        }
        try {
            return Instant.parse(rfc3339).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw in.error(at, "not an RFC 3339 time: " + JsonInput.shown(rfc3339));
        }
    }
}
