package io.gpuwatch.probe.sched.slurm;

import io.gpuwatch.probe.sched.JsonInput;
import io.gpuwatch.probe.sched.ModelDeclaration;
import io.gpuwatch.probe.sched.QueueReading;
import io.gpuwatch.probe.sched.SchedInputError;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns {@code squeue --json}, {@code sacct --json} and {@code scontrol show node --json} (Slurm's data_parser
 * v0.0.40 and v0.0.41 shapes) into one {@link QueueReading} per partition. Keeps, across readings, the
 * preemptions and requeues it has counted, so that the reported count only grows.
 */
public final class SlurmReader {
    /** Node state flags under which Slurm starts nothing new on the node. */
    private static final Set<String> UNSCHEDULABLE = Set.of("DOWN", "DRAIN", "FAIL", "FUTURE", "MAINTENANCE",
            "POWERED_DOWN", "POWERING_DOWN", "NOT_RESPONDING", "INVALID_REG", "REBOOT_ISSUED");
    /**
     * Job states that end a job, and the outcome each reports: a job that ran out of time, memory or a node
     * failed; one someone cancelled was stopped on purpose. PREEMPTED and REQUEUED are counted as preemptions.
     */
    private static final Map<String, String> ENDED = Map.of("COMPLETED", "succeeded", "FAILED", "failed",
            "TIMEOUT", "failed", "OUT_OF_MEMORY", "failed", "NODE_FAIL", "failed", "BOOT_FAIL", "failed",
            "DEADLINE", "failed", "CANCELLED", "cancelled");
    /** sacct states that mean the job lost its cards to another and went back to the queue or ended. */
    private static final Set<String> PREEMPTED = Set.of("PREEMPTED", "REQUEUED");
    /** How long a counted preemption is remembered: longer than any sacct look-back the producer uses. */
    static final long REMEMBER_MS = 6 * 3600_000L;

    // partition → job id + end time of each counted preemption → when it was last seen in sacct's answer
    private final Map<String, Map<String, Long>> seen = new HashMap<>();
    private final Map<String, Long> counted = new HashMap<>();

    /** One reading of every partition that has GPU nodes or GPU jobs, in name order. */
    public List<QueueReading> read(SlurmOutput out, long nowMs) throws SchedInputError {
        Set<String> listed = new HashSet<>();
        Map<String, List<QueueReading.Job>> jobs = jobs(out.squeue(), listed);
        Map<String, List<QueueReading.NodeCards>> nodes = nodes(out.nodes());
        if (out.sacct() != null) {
            preemptions(out.sacct(), nowMs);
            ended(out.sacct(), listed).forEach((p, ended) -> jobs.computeIfAbsent(p, k -> new ArrayList<>())
                    .addAll(ended));
        }
        TreeMap<String, Boolean> partitions = new TreeMap<>();
        jobs.keySet().forEach(p -> partitions.put(p, true));
        nodes.keySet().forEach(p -> partitions.put(p, true));
        List<QueueReading> readings = new ArrayList<>();
        for (String p : partitions.keySet()) {
            long preempted = out.sacct() == null ? -1 : counted.getOrDefault(p, 0L);
            readings.add(new QueueReading(p, jobs.getOrDefault(p, List.of()), nodes.getOrDefault(p, List.of()),
                    preempted, -1));
        }
        return readings;
    }

    /** The jobs of each partition; {@code listed} gets the task name of each. */
    private Map<String, List<QueueReading.Job>> jobs(SlurmOutput.Part part, Set<String> listed)
            throws SchedInputError {
        JsonInput in = new JsonInput(part.source());
        JsonObject doc = in.document(part.json());
        errors(in, doc);
        Map<String, List<QueueReading.Job>> byPartition = new LinkedHashMap<>();
        for (JsonInput.Item item : in.items(doc, "", "jobs")) {
            JsonObject j = item.value();
            String at = item.path();
            long id = (long) required(in, j, at, "job_id");
            List<String> states = states(in, j, at, "job_state");
            boolean pending = states.contains("PENDING");
            String state = states.isEmpty() ? "unknown" : states.get(0).toLowerCase(Locale.ROOT);
            String outcome = outcome(states);
            if (!pending && !states.contains("RUNNING") && !states.contains("SUSPENDED") && outcome == null) {
                continue; // finishing: holds nothing the queue is waiting for, and has no outcome yet
            }
            int nodeCount = Math.max(1, (int) orZero(number(in, j, at, "node_count")));
            int perNode = Gres.tresGpus(in.string(j, at, "tres_per_node"));
            if (perNode == 0) {
                int total = Gres.tresGpus(in.string(j, at, "tres_per_job"));
                if (total == 0) {
                    total = Gres.tresGpus(in.string(j, at, pending ? "tres_req_str" : "tres_alloc_str"));
                }
                perNode = (total + nodeCount - 1) / nodeCount;
            }
            if (perNode == 0) {
                continue; // a CPU job: no part of the GPU queue
            }
            long submitted = (long) (orZero(number(in, j, at, "submit_time")) * 1000);
            String partition = in.requiredString(j, at, "partition");
            // a job pending in several partitions ("a,b") waits in the first it names
            int comma = partition.indexOf(',');
            String queue = comma < 0 ? partition : partition.substring(0, comma);
            listed.add("slurm-" + id);
            byPartition.computeIfAbsent(queue, k -> new ArrayList<>()).add(new QueueReading.Job("slurm-" + id,
                    in.string(j, at, "user_name"), in.string(j, at, "account"), state, pending, perNode, nodeCount,
                    submitted, List.of(), outcome, ModelDeclaration.ofComment(comment(in, j, at))));
        }
        return byPartition;
    }

    /** A job's comment: a string in squeue's answer, {@code {"job": …}} in sacct's; null when none. */
    private static String comment(JsonInput in, JsonObject j, String at) throws SchedInputError {
        Object v = j.getValue("comment");
        if (v instanceof JsonObject c) {
            return in.string(c, JsonInput.join(at, "comment"), "job");
        }
        return in.string(j, at, "comment");
    }

    /** The outcome of a job in one of these states, or null while it has not ended. */
    private static String outcome(List<String> states) {
        for (String s : states) {
            String o = ENDED.get(s);
            if (o != null) {
                return o;
            }
        }
        return null;
    }

    /**
     * GPU jobs of the last sacct window that ended and squeue no longer lists, by partition, so their outcome
     * reaches the gateway after Slurm forgets them; the latest record of a job id (sacct repeats a requeued one).
     */
    private Map<String, List<QueueReading.Job>> ended(SlurmOutput.Part part, Set<String> listed)
            throws SchedInputError {
        JsonInput in = new JsonInput(part.source());
        JsonObject doc = in.document(part.json());
        Map<String, QueueReading.Job> byTask = new LinkedHashMap<>();
        Map<String, String> partitionOf = new HashMap<>();
        for (JsonInput.Item item : in.items(doc, "", "jobs")) {
            JsonObject j = item.value();
            String at = item.path();
            JsonObject state = in.object(j, at, "state");
            List<String> current = state == null ? List.of()
                    : states(in, state, JsonInput.join(at, "state"), "current");
            String outcome = outcome(current);
            String partition = in.string(j, at, "partition");
            String task = "slurm-" + (long) required(in, j, at, "job_id");
            int gpus = allocatedGpus(in, j, at);
            if (outcome == null || partition == null || gpus == 0 || listed.contains(task)) {
                continue;
            }
            int comma = partition.indexOf(',');
            partitionOf.put(task, comma < 0 ? partition : partition.substring(0, comma));
            byTask.put(task, new QueueReading.Job(task, in.string(j, at, "user"), in.string(j, at, "account"),
                    current.get(0).toLowerCase(Locale.ROOT), false, gpus, 1, 0, List.of(), outcome, null));
        }
        Map<String, List<QueueReading.Job>> out = new LinkedHashMap<>();
        byTask.forEach((task, job) -> out.computeIfAbsent(partitionOf.get(task), k -> new ArrayList<>()).add(job));
        return out;
    }

    /** The GPUs sacct says a job was allocated ({@code tres.allocated}, type gres, name gpu); 0 for none. */
    private static int allocatedGpus(JsonInput in, JsonObject j, String at) throws SchedInputError {
        JsonObject tres = in.object(j, at, "tres");
        if (tres == null) {
            return 0;
        }
        String tresAt = JsonInput.join(at, "tres");
        int gpus = 0;
        for (JsonInput.Item t : in.items(tres, tresAt, "allocated")) {
            if ("gres".equals(in.string(t.value(), t.path(), "type"))
                    && "gpu".equals(in.string(t.value(), t.path(), "name"))) {
                gpus += (int) orZero(number(in, t.value(), t.path(), "count"));
            }
        }
        return gpus;
    }

    private Map<String, List<QueueReading.NodeCards>> nodes(SlurmOutput.Part part) throws SchedInputError {
        JsonInput in = new JsonInput(part.source());
        JsonObject doc = in.document(part.json());
        errors(in, doc);
        Map<String, List<QueueReading.NodeCards>> byPartition = new LinkedHashMap<>();
        for (JsonInput.Item item : in.items(doc, "", "nodes")) {
            JsonObject n = item.value();
            String at = item.path();
            String name = in.requiredString(n, at, "name");
            int total = Gres.nodeGpus(in.string(n, at, "gres"));
            if (total == 0) {
                total = Gres.tresGpus(in.string(n, at, "tres"));
            }
            if (total == 0) {
                continue;
            }
            int used = Gres.nodeGpus(in.string(n, at, "gres_used"));
            if (used == 0) {
                used = Gres.tresGpus(in.string(n, at, "tres_used"));
            }
            List<String> states = states(in, n, at, "state");
            boolean schedulable = states.stream().noneMatch(UNSCHEDULABLE::contains);
            String reason = schedulable ? null : reason(in, n, at, states);
            for (String p : in.strings(n, at, "partitions")) {
                byPartition.computeIfAbsent(p, k -> new ArrayList<>())
                        .add(new QueueReading.NodeCards(name, total, used, schedulable, reason));
            }
        }
        return byPartition;
    }

    private void preemptions(SlurmOutput.Part part, long nowMs) throws SchedInputError {
        JsonInput in = new JsonInput(part.source());
        JsonObject doc = in.document(part.json());
        errors(in, doc);
        for (JsonInput.Item item : in.items(doc, "", "jobs")) {
            JsonObject j = item.value();
            String at = item.path();
            JsonObject state = in.object(j, at, "state");
            if (state == null) {
                throw in.error(JsonInput.join(at, "state"), "missing");
            }
            List<String> current = states(in, state, JsonInput.join(at, "state"), "current");
            if (current.stream().noneMatch(PREEMPTED::contains)) {
                continue;
            }
            String partition = in.string(j, at, "partition");
            if (partition == null) {
                continue;
            }
            JsonObject time = in.object(j, at, "time");
            double end = time == null ? 0 : orZero(number(in, time, JsonInput.join(at, "time"), "end"));
            String key = (long) required(in, j, at, "job_id") + "@" + (long) end;
            Map<String, Long> known = seen.computeIfAbsent(partition, k -> new HashMap<>());
            if (known.put(key, nowMs) == null) {
                counted.merge(partition, 1L, Long::sum);
            }
        }
        for (Map<String, Long> known : seen.values()) {
            known.values().removeIf(at -> nowMs - at > REMEMBER_MS);
        }
    }

    /** Slurm's own errors in the answer (a failed query still prints JSON) end the reading. */
    private static void errors(JsonInput in, JsonObject doc) throws SchedInputError {
        List<JsonInput.Item> errors = in.items(doc, "", "errors");
        if (!errors.isEmpty()) {
            JsonObject e = errors.get(0).value();
            Object text = e.getValue("description", e.getValue("error"));
            throw in.error("errors[0]", "Slurm reported: " + text);
        }
    }

    /** The reason a node is drained or down, with who set it where Slurm says. */
    private static String reason(JsonInput in, JsonObject n, String at, List<String> states) throws SchedInputError {
        String why = in.string(n, at, "reason");
        String by = in.string(n, at, "reason_set_by_user");
        String flags = String.join("+", states);
        if (why == null || why.isBlank()) {
            return flags;
        }
        return flags + ": " + why + (by == null || by.isBlank() ? "" : " (set by " + by + ")");
    }

    /** A state field: an array of flags since v0.0.40, a single string before; upper case. */
    private static List<String> states(JsonInput in, JsonObject o, String at, String key) throws SchedInputError {
        Object v = o.getValue(key);
        if (v instanceof String s) {
            return List.of(s.toUpperCase(Locale.ROOT));
        }
        return in.strings(o, at, key).stream().map(s -> s.toUpperCase(Locale.ROOT)).toList();
    }

    /**
     * A Slurm number: since v0.0.40 most are {@code {"set":…,"infinite":…,"number":…}}, some still plain; NaN
     * when absent, unset or infinite.
     */
    static double number(JsonInput in, JsonObject o, String at, String key) throws SchedInputError {
        Object v = o.getValue(key);
        if (v == null || v instanceof Number) {
            return in.number(o, at, key);
        }
        if (!(v instanceof JsonObject s)) {
            throw in.error(JsonInput.join(at, key), "expected a number or {set, infinite, number}, got "
                    + JsonInput.shown(v));
        }
        String path = JsonInput.join(at, key);
        if (Boolean.FALSE.equals(s.getValue("set")) || Boolean.TRUE.equals(s.getValue("infinite"))) {
            return Double.NaN;
        }
        return in.number(s, path, "number");
    }

    private static double required(JsonInput in, JsonObject o, String at, String key) throws SchedInputError {
        double v = number(in, o, at, key);
        if (Double.isNaN(v)) {
            throw in.error(JsonInput.join(at, key), "missing");
        }
        return v;
    }

    private static double orZero(double v) {
        return Double.isNaN(v) ? 0 : v;
    }
}
