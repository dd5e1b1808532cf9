package io.gpuwatch.probe.sched.slurm;

import io.gpuwatch.probe.sched.Fixtures;
import io.gpuwatch.probe.sched.QueueFigures;
import io.gpuwatch.probe.sched.QueueReading;
import io.gpuwatch.probe.sched.SchedInputError;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Slurm 23.11 (data_parser v0.0.40) recordings in resources/sched/slurm, read into partitions (see its README). */
class SlurmReaderTest {
    static final long NOW = 1764700000_000L;

    static SlurmOutput recorded() {
        return new SlurmOutput(part("squeue.json"), part("sacct.json"), part("scontrol-nodes.json"));
    }

    static SlurmOutput.Part part(String name) {
        return new SlurmOutput.Part(name, Fixtures.read("slurm/" + name));
    }

    @Test
    void everyGpuPartitionIsAQueueWithItsFigures() throws SchedInputError {
        List<QueueReading> readings = new SlurmReader().read(recorded(), NOW);
        assertEquals(List.of("debug", "gpu"), readings.stream().map(QueueReading::queue).toList(),
                "cpu has neither GPU nodes nor GPU jobs");

        Sched gpu = QueueFigures.frame(readings.get(1), NOW);
        assertEquals("gpu", gpu.queue());
        // 1004, 1005, 1006 wait; 1007 asks for no GPU, 1008 has completed
        assertEquals(3, gpu.values().get(Metric.PENDING));
        assertEquals(3, gpu.values().get(Metric.RUNNING));
        // waits 300, 600, 1200 s: nearest-rank p50 is the 2nd, p90 the 3rd
        assertEquals(600, gpu.values().get(Metric.WAIT_P50_S));
        assertEquals(1200, gpu.values().get(Metric.WAIT_P90_S));
        assertEquals(1200, gpu.values().get(Metric.WAIT_MAX_S));
        // 4 nodes × 8; gres_used 8 + 6 + 5 + 0
        assertEquals(32, gpu.values().get(Metric.CARDS_TOTAL));
        assertEquals(19, gpu.values().get(Metric.CARDS_ALLOCATED));
        // gpu-004 is IDLE+DRAIN: its 8 free cards are not free
        assertEquals(8, gpu.values().get(Metric.DRAINED_CARDS));
        // the smallest pending job needs 4 per node (1004: 4 × 2 nodes, 1006: 4); gpu-002 has 2 free, gpu-003 3
        assertEquals(5, gpu.values().get(Metric.FRAGMENTED_CARDS));
        // 8 + 6 + 5 running, 8 (4 × 2) + 8 (tres_per_job) + 4 (tres_req_str) pending
        assertEquals(39, gpu.values().get(Metric.REQUESTED_CARDS));
        // 990 PREEMPTED and 991 REQUEUED; 992 COMPLETED is not one
        assertEquals(2, gpu.values().get(Metric.PREEMPTIONS));
        assertFalse(gpu.values().has(Metric.REQUESTED_MEM_BYTES), "Slurm does not say what device memory a job wants");

        SchedTask pretrain = gpu.tasks().stream().filter(t -> t.task().equals("slurm-1004")).findFirst().orElseThrow();
        assertEquals(new SchedTask("slurm-1004", "alice", "chat-pretrain", List.of(), "pending", 8), pretrain);
        // and the jobs that ended: 1008 that squeue still lists, 992 that only sacct remembers
        assertEquals(8, gpu.tasks().size());
        SchedTask completed = gpu.tasks().stream().filter(t -> t.task().equals("slurm-1008")).findFirst()
                .orElseThrow();
        assertEquals("succeeded", completed.outcome());
        assertEquals("completed", completed.state());
        SchedTask fromSacct = gpu.tasks().stream().filter(t -> t.task().equals("slurm-992")).findFirst()
                .orElseThrow();
        assertEquals(new SchedTask("slurm-992", "carol", "search-ranking", List.of(), "completed", 2, null,
                "succeeded", null), fromSacct);
        assertNull(pretrain.outcome(), "a pending job has not ended");

        Sched debug = QueueFigures.frame(readings.get(0), NOW);
        assertEquals(0, debug.values().get(Metric.PENDING));
        assertFalse(debug.values().has(Metric.WAIT_P50_S), "no wait without a waiting job");
        assertEquals(1, debug.values().get(Metric.RUNNING));
        assertEquals(4, debug.values().get(Metric.CARDS_TOTAL));
        assertEquals(1, debug.values().get(Metric.CARDS_ALLOCATED));
        assertEquals(0, debug.values().get(Metric.FRAGMENTED_CARDS));
        assertEquals(1, debug.values().get(Metric.PREEMPTIONS));
    }

    @Test
    void drainedNodesKeepTheirReason() throws SchedInputError {
        QueueReading gpu = new SlurmReader().read(recorded(), NOW).get(1);
        QueueReading.NodeCards drained = gpu.nodes().stream().filter(n -> !n.schedulable()).findFirst().orElseThrow();
        assertEquals("gpu-004", drained.node());
        assertEquals("IDLE+DRAIN: XID 79 on GPU 3, waiting for RMA (set by root)", drained.reason());
    }

    @Test
    void aPreemptionIsCountedOnceHoweverOftenSacctListsIt() throws SchedInputError {
        SlurmReader reader = new SlurmReader();
        reader.read(recorded(), NOW);
        assertEquals(2, reader.read(recorded(), NOW + 60_000).get(1).preemptions());
        String more = Fixtures.read("slurm/sacct.json").replace("\"COMPLETED\"", "\"PREEMPTED\"");
        SlurmOutput later = new SlurmOutput(part("squeue.json"), new SlurmOutput.Part("sacct", more),
                part("scontrol-nodes.json"));
        assertEquals(3, reader.read(later, NOW + 120_000).get(1).preemptions());
    }

    @Test
    void withoutAccountingPreemptionsAreNotReported() throws SchedInputError {
        SlurmOutput out = new SlurmOutput(part("squeue.json"), null, part("scontrol-nodes.json"));
        Sched gpu = QueueFigures.frame(new SlurmReader().read(out, NOW).get(1), NOW);
        assertFalse(gpu.values().has(Metric.PREEMPTIONS));
    }

    @Test
    void aFieldOfTheWrongTypeIsNamedWithItsPath() {
        String bad = Fixtures.read("slurm/squeue.json").replaceFirst("\"job_state\": \\[\\s*\"RUNNING\"\\s*]",
                "\"job_state\": 5");
        SlurmOutput out = new SlurmOutput(new SlurmOutput.Part("squeue --json", bad), null,
                part("scontrol-nodes.json"));
        SchedInputError e = assertThrows(SchedInputError.class, () -> new SlurmReader().read(out, NOW));
        assertEquals("squeue --json: jobs[0].job_state: expected an array of strings, got 5", e.getMessage());
    }

    @Test
    void brokenJsonNamesItsLineAndColumn() {
        SlurmOutput out = new SlurmOutput(new SlurmOutput.Part("squeue.json", "{\n  \"jobs\": [\n    {,\n"), null,
                part("scontrol-nodes.json"));
        SchedInputError e = assertThrows(SchedInputError.class, () -> new SlurmReader().read(out, NOW));
        assertTrue(e.getMessage().startsWith("squeue.json: not a JSON object: "), e.getMessage());
        assertTrue(e.getMessage().contains("line: 3, column: 6"), e.getMessage());
    }

    @Test
    void slurmsOwnErrorEndsTheReading() {
        String failed = "{\"jobs\": [], \"errors\": [{\"description\": \"Unable to contact slurm controller\","
                + " \"error_number\": 1007, \"error\": \"Socket timed out on send/recv operation\", \"source\":"
                + " \"slurm_load_jobs\"}], \"warnings\": []}";
        SlurmOutput out = new SlurmOutput(new SlurmOutput.Part("squeue --json", failed), null,
                part("scontrol-nodes.json"));
        SchedInputError e = assertThrows(SchedInputError.class, () -> new SlurmReader().read(out, NOW));
        assertEquals("squeue --json: errors[0]: Slurm reported: Unable to contact slurm controller", e.getMessage());
    }

    @Test
    void gresAndTresStringsInTheirSeveralForms() {
        assertEquals(8, Gres.nodeGpus("gpu:a100:8(S:0-1)"));
        assertEquals(5, Gres.nodeGpus("gpu:a100:5(IDX:0-2,4,6),nvme:1"));
        assertEquals(0, Gres.nodeGpus("gpu:a100:0(IDX:N/A)"));
        assertEquals(3, Gres.nodeGpus("gpu:a100:2(S:0),gpu:l4:1(S:1)"));
        assertEquals(2, Gres.tresGpus("gres/gpu:a100:2"));
        assertEquals(2, Gres.tresGpus("gres:gpu:2"));
        assertEquals(4, Gres.tresGpus("cpu=8,mem=64G,gres/gpu=4,gres/gpu:a100=4"));
        assertEquals(3, Gres.tresGpus("gres/gpu:a100:2,gres/gpu:l4:1"));
        assertEquals(1, Gres.tresGpus("gres/gpu"));
        assertEquals(0, Gres.tresGpus("cpu=4,gres/gpumem=40G"));
    }

    @Test
    void aJobThatFailedOrWasCancelledSaysSoAndItsCommentDeclaresItsModel() throws SchedInputError {
        String squeue = Fixtures.read("slurm/squeue.json").replace("\"job_id\": 1004,", "\"job_id\": 1004, "
                + "\"comment\": \"nightly run; gpuwatch-model: params=8.03e9 workload=training precision=fp8\",");
        String sacct = Fixtures.read("slurm/sacct.json").replace("\"COMPLETED\"", "\"OUT_OF_MEMORY\"");
        SlurmOutput out = new SlurmOutput(new SlurmOutput.Part("squeue", squeue), new SlurmOutput.Part("sacct", sacct),
                part("scontrol-nodes.json"));
        Sched gpu = QueueFigures.frame(new SlurmReader().read(out, NOW).get(1), NOW);
        SchedTask pretrain = gpu.tasks().stream().filter(t -> t.task().equals("slurm-1004")).findFirst().orElseThrow();
        assertEquals(new SchedTask.Model(8.03e9, "training", "fp8", null), pretrain.model());
        assertEquals("failed", gpu.tasks().stream().filter(t -> t.task().equals("slurm-992")).findFirst()
                .orElseThrow().outcome(), "out of memory is a failure");
        String typo = squeue.replace("precision=fp8", "precision=fp9");
        Sched unknown = QueueFigures.frame(new SlurmReader().read(new SlurmOutput(new SlurmOutput.Part("squeue", typo),
                null, part("scontrol-nodes.json")), NOW).get(1), NOW);
        assertNull(unknown.tasks().stream().filter(t -> t.task().equals("slurm-1004")).findFirst().orElseThrow()
                .model(), "a declaration with a bad value is none, not a guess");
    }
}
