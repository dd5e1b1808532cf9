package io.gpuwatch.probe.attribution;

import io.gpuwatch.protocol.ProcessInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

class AttributorTest {
    private static final Path PROC = Path.of("src", "test", "resources", "proc");
    private static final long GIB = 1L << 30;
    private final AtomicLong clock = new AtomicLong(1_764_700_000_000L);

    // the fixture tree: see src/test/resources/proc/<pid>/cgroup
    private static final String LABELS = """
            pods:
              3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab: {task: svc-chat-70b, owner: team-llm, business: chat}
              7a0d4e2c_19f3_4b6a_8c5e_2f9b1d3a4c6e: {task: train-llama-8812, owner: team-llm, business: chat-pretrain}
              c41e9b7a-0f2d-4e8c-b1a5-9d6f3e2a7b10: {task: embed-batch, owner: team-search, business: search}
              5e8f0a1b-2c3d-4e5f-8a9b-0c1d2e3f4a5b: {task: notebook-dana, owner: dana}
              9b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d5e: {task: svc-rerank, owner: team-search, business: search}
            slurmJobs:
              88121: {task: pretrain-moe, owner: alice, business: research}
              88123: {business: research}
            containers:
              18ac3e7343f0: {task: jupyter-eve, owner: eve}
              3f79bb7b435b: {task: triton-old, owner: ops}
              3f79bb7b435b0532: {task: triton-ocr, owner: ops, business: documents}
            """;

    private static Labels labels(String yaml) {
        return assertInstanceOf(LabelsLoad.Loaded.class, LabelsLoader.parse("labels.yaml", yaml)).labels();
    }

    private Attributor attributor(String yaml) {
        Labels l = labels(yaml);
        return Attributor.builder(clock::get).procRoot(PROC).labels(() -> l).build();
    }

    private ProcessInfo attribute(long pid) {
        return attributor(LABELS).attribute(pid, 40 * GIB);
    }

    @Test
    void containerdPodWithTheSystemdDriverTakesItsPodEntry() {
        assertEquals(new ProcessInfo(1001, 40 * GIB, "svc-chat-70b", "team-llm", "chat"), attribute(1001));
    }

    @Test
    void cgroupfsPodMatchesAnEntryWrittenWithUnderscores() {
        assertEquals(new ProcessInfo(1002, 40 * GIB, "train-llama-8812", "team-llm", "chat-pretrain"), attribute(1002));
    }

    @Test
    void crioPodTakesItsPodEntry() {
        assertEquals(new ProcessInfo(1003, 40 * GIB, "embed-batch", "team-search", "search"), attribute(1003));
    }

    @Test
    void guaranteedSystemdPodTakesItsPodEntry() {
        assertEquals(new ProcessInfo(1012, 40 * GIB, "svc-rerank", "team-search", "search"), attribute(1012));
    }

    @Test
    void cgroupV1MultiLineFileOfAPodIsRead() {
        assertEquals(new ProcessInfo(1011, 40 * GIB, "notebook-dana", "dana", null), attribute(1011));
    }

    @Test
    void dockerContainerMatchesItsShortIdPrefix() {
        assertEquals(new ProcessInfo(1004, null, "jupyter-eve", "eve", null),
                attributor(LABELS).attribute(1004, null));
    }

    @Test
    void theLongestContainerPrefixWins() {
        assertEquals(new ProcessInfo(1005, 40 * GIB, "triton-ocr", "ops", "documents"), attribute(1005));
    }

    @Test
    void slurmJobFromTheV1CgroupPathTakesItsJobEntry() {
        assertEquals(new ProcessInfo(1006, 40 * GIB, "pretrain-moe", "alice", "research"), attribute(1006));
    }

    @Test
    void slurmJobWithoutAnEntryIsNamedForTheJobAndItsUser() {
        assertEquals(new ProcessInfo(1007, 40 * GIB, "slurm-88122", "alice", null), attribute(1007));
    }

    @Test
    void slurmJobIdFromTheEnvironmentFillsWhatItsEntryLeavesOpen() {
        assertEquals(new ProcessInfo(1008, 40 * GIB, "slurm-88123", "bob", "research"), attribute(1008));
    }

    @Test
    void explicitEnvironmentWinsOverThePodEntryFieldByField() {
        // GPUWATCH_BUSINESS is set but empty, so the pod's business shows through
        assertEquals(new ProcessInfo(1009, 40 * GIB, "eval-harness", "carol", "chat"), attribute(1009));
    }

    @Test
    void aContainerEntryWinsOverItsPodEntry() {
        Attributor a = attributor(LABELS + "  ca978112ca1b: {task: svc-chat-70b-canary}\n");
        assertEquals(new ProcessInfo(1001, 1L, "svc-chat-70b-canary", "team-llm", "chat"), a.attribute(1001, 1L));
    }

    @Test
    void anUnknownProcessIsUnattributedUnlessDefaultsSaySo() {
        assertEquals(new ProcessInfo(1010, 40 * GIB, null, null, null), attribute(1010));
        Attributor withDefaults = attributor(LABELS + "defaults: {owner: gpu-ops, business: shared}\n");
        assertEquals(new ProcessInfo(1010, 7L, null, "gpu-ops", "shared"), withDefaults.attribute(1010, 7L));
        assertEquals(new ProcessInfo(1001, 7L, "svc-chat-70b", "team-llm", "chat"), withDefaults.attribute(1001, 7L));
    }

    @Test
    void aMissingPidComesBackUnattributedWithItsMemory() {
        assertEquals(new ProcessInfo(4242, 3 * GIB, null, null, null), attributor(LABELS).attribute(4242, 3 * GIB));
    }

    @Test
    void withoutALabelsFileOnlyTheProcessItselfAndSlurmAttribute() {
        Attributor a = Attributor.builder(clock::get).procRoot(PROC).build();
        assertEquals(new ProcessInfo(1001, null, null, null, null), a.attribute(1001, null));
        assertEquals(new ProcessInfo(1009, null, "eval-harness", "carol", null), a.attribute(1009, null));
        assertEquals(new ProcessInfo(1006, null, "slurm-88121", "alice", null), a.attribute(1006, null));
    }

    @Test
    void podLabelsFillWhatThePodEntryLeavesOpenWithTheConfiguredKeys() {
        Labels l = labels("""
                pods:
                  3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab: {owner: team-llm-oncall}
                podLabels:
                  task: [gpuwatch.io/task, app.kubernetes.io/name]
                  owner: team
                """);
        Map<String, Map<String, String>> pods = Map.of(
                "3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab", Map.of("app.kubernetes.io/name", "svc-chat-70b",
                        "team", "team-llm", "gpuwatch.io/business", "chat"),
                "c41e9b7a-0f2d-4e8c-b1a5-9d6f3e2a7b10", Map.of("gpuwatch.io/task", "embed-batch",
                        "app.kubernetes.io/name", "embedder", "team", "team-search"));
        Attributor a = Attributor.builder(clock::get).procRoot(PROC).labels(() -> l)
                .podLabels(uid -> pods.getOrDefault(uid, Map.of())).build();
        assertEquals(new ProcessInfo(1001, null, "svc-chat-70b", "team-llm-oncall", "chat"), a.attribute(1001, null));
        assertEquals(new ProcessInfo(1003, null, "embed-batch", "team-search", null), a.attribute(1003, null));
        assertEquals(new ProcessInfo(1002, null, null, null, null), a.attribute(1002, null));
    }

    @Test
    void anAttributionIsReusedForItsTtlThenReadAgain(@TempDir Path proc) throws IOException {
        process(proc, 77, 100, "3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab");
        Labels l = labels(LABELS);
        Attributor a = Attributor.builder(clock::get).procRoot(proc).labels(() -> l)
                .cacheTtl(Duration.ofSeconds(10)).build();
        assertEquals("svc-chat-70b", a.attribute(77, null).task());
        // the same process moved to another pod's cgroup: only seen once the cached answer expires
        process(proc, 77, 100, "c41e9b7a-0f2d-4e8c-b1a5-9d6f3e2a7b10");
        clock.addAndGet(9_999);
        assertEquals("svc-chat-70b", a.attribute(77, null).task());
        clock.addAndGet(1);
        assertEquals("embed-batch", a.attribute(77, null).task());
    }

    @Test
    void aReusedPidIsLookedAtAfreshAtOnce(@TempDir Path proc) throws IOException {
        process(proc, 77, 100, "3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab");
        Labels l = labels(LABELS);
        Attributor a = Attributor.builder(clock::get).procRoot(proc).labels(() -> l).build();
        assertEquals("svc-chat-70b", a.attribute(77, null).task());
        process(proc, 77, 200, "c41e9b7a-0f2d-4e8c-b1a5-9d6f3e2a7b10");
        assertEquals("embed-batch", a.attribute(77, null).task());
    }

    @Test
    void labelsChangesReachCachedProcessesAfterTheTtl(@TempDir Path proc) throws IOException {
        process(proc, 77, 100, "3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab");
        Labels[] current = {labels(LABELS)};
        Attributor a = Attributor.builder(clock::get).procRoot(proc).labels(() -> current[0])
                .cacheTtl(Duration.ofSeconds(5)).build();
        assertEquals("svc-chat-70b", a.attribute(77, null).task());
        current[0] = labels("pods: {3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab: {task: svc-chat-405b}}");
        assertEquals("svc-chat-70b", a.attribute(77, null).task());
        clock.addAndGet(5_000);
        assertEquals("svc-chat-405b", a.attribute(77, null).task());
    }

    @Test
    void unreadableEnvironAndCgroupLeaveTheProcessUnattributed(@TempDir Path proc) throws IOException {
        Path dir = Files.createDirectories(proc.resolve("88"));
        Files.writeString(dir.resolve("stat"), "88 (python3) S 1 88 88 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 500 0 0\n");
        // a directory where the file should be: reading it fails, as another user's environ does
        Files.createDirectories(dir.resolve("environ"));
        Files.createDirectories(dir.resolve("cgroup"));
        Attributor a = Attributor.builder(clock::get).procRoot(proc).labels(() -> labels(LABELS)).build();
        assertEquals(new ProcessInfo(88, 5L, null, null, null), a.attribute(88, 5L));
    }

    private static void process(Path proc, long pid, long start, String podUid) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(dir.resolve("stat"), pid + " (python3) S 1 " + pid + " " + pid
                + " 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 8 0 " + start + " 1000 10\n");
        Files.writeString(dir.resolve("cgroup"), "0::/kubepods/burstable/pod" + podUid + "/"
                + "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb\n");
        Files.write(dir.resolve("environ"), "PATH=/usr/bin\0HOME=/root\0".getBytes());
    }
}
