package io.gpuwatch.probe.sched.kubernetes;

import io.gpuwatch.probe.sched.Fixtures;
import io.gpuwatch.probe.sched.JsonInput;
import io.gpuwatch.probe.sched.QueueFigures;
import io.gpuwatch.probe.sched.SchedInputError;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A recorded GPU pod that ends says how, for a while; its annotations declare its model. */
class KubeClusterOutcomeTest {
    private static final long NOW = 1_764_700_000_000L;

    private static JsonObject trainer() {
        return new JsonObject(Fixtures.read("kubernetes/pods.json")).getJsonArray("items").getJsonObject(0);
    }

    private static SchedTask task(Sched frame, String name) {
        return frame.tasks().stream().filter(t -> t.task().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void anEndedPodReportsItsOutcomeAndAnEvictedOneIsNoFailure() throws SchedInputError {
        KubeCluster cluster = new KubeCluster("pool");
        JsonObject pod = trainer();
        pod.getJsonObject("metadata").put("annotations", new JsonObject().put("gpuwatch.io/model-params", "8.03e9")
                .put("gpuwatch.io/workload", "training"));
        JsonInput in = new JsonInput("pods watch");
        cluster.podEvent("ADDED", pod, "object", in, NOW);
        Sched running = QueueFigures.frame(cluster.reading(NOW), NOW);
        assertEquals(new SchedTask.Model(8.03e9, "training", "bf16", null), task(running, "train-7b").model());
        assertNull(task(running, "train-7b").outcome());
        assertEquals(8, running.values().get(Metric.REQUESTED_CARDS));

        pod.getJsonObject("status").put("phase", "Succeeded");
        cluster.podEvent("MODIFIED", pod, "object", in, NOW + 1000);
        cluster.podEvent("DELETED", pod, "object", in, NOW + 2000);
        Sched done = QueueFigures.frame(cluster.reading(NOW + 3000), NOW + 3000);
        assertEquals("succeeded", task(done, "train-7b").outcome());
        assertEquals(0, done.values().get(Metric.REQUESTED_CARDS), "an ended pod asks for nothing");
        assertEquals(0, done.values().get(Metric.RUNNING));

        JsonObject evicted = trainer();
        evicted.getJsonObject("metadata").put("name", "train-7b-1").getJsonObject("labels")
                .put("gpuwatch.io/task", "train-7b-retry");
        evicted.getJsonObject("status").put("phase", "Failed").put("reason", "Evicted");
        cluster.podEvent("MODIFIED", evicted, "object", in, NOW + 4000);
        JsonObject failed = trainer();
        failed.getJsonObject("metadata").put("name", "train-7b-2").getJsonObject("labels")
                .put("gpuwatch.io/task", "train-7b-bad");
        failed.getJsonObject("metadata").put("annotations", new JsonObject().put("gpuwatch.io/model-params", "lots"));
        failed.getJsonObject("status").put("phase", "Failed");
        cluster.podEvent("MODIFIED", failed, "object", in, NOW + 4000);
        Sched later = QueueFigures.frame(cluster.reading(NOW + 5000), NOW + 5000);
        assertEquals("preempted", task(later, "train-7b-retry").outcome());
        assertEquals("failed", task(later, "train-7b-bad").outcome());
        assertNull(task(later, "train-7b-bad").model(), "a parameter count that is not a number declares nothing");

        Sched forgotten = QueueFigures.frame(cluster.reading(NOW + 4000 + KubeCluster.FORGET_PODS_MS + 1),
                NOW + 4000 + KubeCluster.FORGET_PODS_MS + 1);
        assertTrue(forgotten.tasks().isEmpty(), "ended pods are reported for " + KubeCluster.FORGET_PODS_MS + " ms");
    }
}
