package io.gpuwatch.probe.attribution;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LabelsLoaderTest {
    private static Labels loaded(String yaml) {
        LabelsLoad load = LabelsLoader.parse("labels.yaml", yaml);
        if (load instanceof LabelsLoad.Invalid invalid) {
            throw new AssertionError("expected the labels to load, got " + invalid.errors());
        }
        return ((LabelsLoad.Loaded) load).labels();
    }

    private static List<String> errors(String yaml) {
        return assertInstanceOf(LabelsLoad.Invalid.class, LabelsLoader.parse("labels.yaml", yaml)).errors().stream()
                .map(LabelsError::toString).toList();
    }

    @Test
    void aFullFileLoadsWithNormalisedKeys() {
        Labels l = loaded("""
                # maintained by gpu-ops
                defaults:
                  business: shared
                pods:
                  3F1C2A9E_5B7D_4C1E_9A8F_0123456789AB:
                    task: svc-chat-70b
                    owner: team-llm
                slurmJobs:
                  "88121": {task: pretrain-moe, owner: alice, business: research}
                containers:
                  4F3C2B1A9E8D: {task: batch-embed}
                podLabels:
                  task: [gpuwatch.io/task, app.kubernetes.io/name]
                  owner: team
                """);
        assertEquals(Map.of("3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab", new Attribution("svc-chat-70b", "team-llm", null)),
                l.pods());
        assertEquals(Map.of("88121", new Attribution("pretrain-moe", "alice", "research")), l.slurmJobs());
        assertEquals(Map.of("4f3c2b1a9e8d", new Attribution("batch-embed", null, null)), l.containers());
        assertEquals(new Attribution(null, null, "shared"), l.defaults());
        assertEquals(new PodLabelKeys(List.of("gpuwatch.io/task", "app.kubernetes.io/name"), List.of("team"),
                List.of("gpuwatch.io/business")), l.podLabels());
    }

    @Test
    void anEmptyFileAndEmptySectionsMeanNoMapping() {
        assertEquals(Labels.empty(), loaded("# nothing yet\n"));
        assertEquals(Labels.empty(), loaded("pods:\nslurmJobs:\n"));
    }

    @Test
    void badKeysAreReportedWhereTheyAre() {
        assertEquals(List.of(
                "labels.yaml:2:3: 'not-a-uid' is not a pod UID (like 3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab)",
                "labels.yaml:4:3: 'job-7' is not a Slurm job id (a whole number like 88121)",
                "labels.yaml:6:3: '4f3c2b' is not a container id prefix (12 to 64 hex digits, like the 12 that "
                        + "'docker ps' shows)"),
                errors("""
                        pods:
                          not-a-uid: {task: a}
                        slurmJobs:
                          job-7: {task: b}
                        containers:
                          4f3c2b: {task: c}
                        """));
    }

    @Test
    void entriesNeedKnownFieldsWithValues() {
        assertEquals(List.of(
                "labels.yaml:2:42: unknown key 'tsk'; known keys: business, owner, task",
                "labels.yaml:3:40: 'pods.7a0d4e2c-19f3-4b6a-8c5e-2f9b1d3a4c6e' has no value; give at least one of "
                        + "task, owner, business",
                "labels.yaml:4:49: 'pods.c41e9b7a-0f2d-4e8c-b1a5-9d6f3e2a7b10.owner' must not be empty",
                "labels.yaml:5:41: 'pods.5e8f0a1b-2c3d-4e5f-8a9b-0c1d2e3f4a5b' needs at least one of task, owner, "
                        + "business",
                "labels.yaml:6:48: 'pods.9b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d5e.task' must be a single value"),
                errors("""
                        pods:
                          3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab: {tsk: a}
                          7a0d4e2c-19f3-4b6a-8c5e-2f9b1d3a4c6e:
                          c41e9b7a-0f2d-4e8c-b1a5-9d6f3e2a7b10: {owner: ""}
                          5e8f0a1b-2c3d-4e5f-8a9b-0c1d2e3f4a5b: {}
                          9b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d5e: {task: [a, b]}
                        """));
    }

    @Test
    void theSameEntryTwiceIsAnError() {
        assertEquals(List.of("labels.yaml:3:3: '3f1c2a9e_5b7d_4c1e_9a8f_0123456789ab' is the same pods entry as an "
                        + "earlier key"),
                errors("""
                        pods:
                          3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab: {task: a}
                          3f1c2a9e_5b7d_4c1e_9a8f_0123456789ab: {task: b}
                        """));
        assertEquals(List.of("labels.yaml:3:1: 'pods' is given twice"), errors("pods: {}\ndefaults: {task: x}\npods: {}\n"));
    }

    @Test
    void unknownSectionsAndWrongShapesAreErrors() {
        assertEquals(List.of("labels.yaml:1:1: unknown key 'pod'; known keys: containers, defaults, podLabels, pods, "
                + "slurmJobs"), errors("pod: {}\n"));
        assertEquals(List.of("labels.yaml:1:7: 'pods' must be a mapping of keys to values"), errors("pods: [a, b]\n"));
        assertEquals(List.of("labels.yaml:1:1: the labels file must be a mapping of keys to values"), errors("- a\n"));
    }

    @Test
    void podLabelKeysMustBeKubernetesLabelKeys() {
        assertEquals(List.of(
                "labels.yaml:2:16: 'not a key' is not a Kubernetes label key (like app.kubernetes.io/name or team)",
                "labels.yaml:3:10: 'podLabels.owner' needs at least one label key",
                "labels.yaml:4:3: unknown key 'team'; known keys: business, owner, task"),
                errors("""
                        podLabels:
                          task: [team, not a key]
                          owner: []
                          team: x
                        """));
    }

    @Test
    void brokenYamlIsReportedWithItsPosition() {
        List<String> e = errors("pods:\n  3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab: {task: a\n");
        assertEquals(1, e.size());
        assertTrue(e.get(0).startsWith("labels.yaml:3:1: not valid YAML: "), e.get(0));
    }

    @Test
    void aMissingFileIsAnErrorNotAnException(@TempDir Path dir) {
        List<LabelsError> e = assertInstanceOf(LabelsLoad.Invalid.class, LabelsLoader.load(dir.resolve("none.yaml")))
                .errors();
        assertEquals(1, e.size());
        assertEquals(0, e.get(0).line());
        assertTrue(e.get(0).message().startsWith("cannot read: "), e.get(0).message());
    }
}
