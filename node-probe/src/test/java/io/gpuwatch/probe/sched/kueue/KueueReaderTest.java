package io.gpuwatch.probe.sched.kueue;

import io.gpuwatch.probe.app.ExpositionParser;
import io.gpuwatch.probe.sched.Fixtures;
import io.gpuwatch.probe.sched.SchedInputError;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.Sched;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Two scrapes of Kueue's /metrics 30 s apart (resources/sched/kueue), read into ClusterQueues. */
class KueueReaderTest {
    private static final long T1 = 1764700000_000L;
    private static final long T2 = T1 + 30_000;

    private static List<Sched> read(KueueReader r, String file, long at) throws SchedInputError {
        return r.read(ExpositionParser.parse(Fixtures.read("kueue/" + file)), at);
    }

    @Test
    void eachClusterQueueWithItsWaitsOfTheWorkloadsAdmittedSinceTheLastScrape() throws SchedInputError {
        KueueReader reader = new KueueReader();
        List<Sched> first = read(reader, "metrics-1.txt", T1);
        assertFalse(first.get(0).values().has(Metric.WAIT_P50_S), "one scrape says nothing about recent admissions");

        List<Sched> second = read(reader, "metrics-2.txt", T2);
        assertEquals(List.of("team-llm-cq", "team-search-cq"), second.stream().map(Sched::queue).toList());
        Sched llm = second.get(0);
        assertEquals(6, llm.values().get(Metric.PENDING), "4 active + 2 inadmissible");
        assertEquals(6, llm.values().get(Metric.RUNNING));
        // 4 admissions between the scrapes: 2 in (64, 128], 1 in (256, 512], 1 in (1024, 2048]; p50 is rank 2,
        // the top of (64, 128]; p90 rank 3.6, 0.6 into (1024, 2048]
        assertEquals(128, llm.values().get(Metric.WAIT_P50_S), 1e-9);
        assertEquals(1638.4, llm.values().get(Metric.WAIT_P90_S), 1e-9);
        assertEquals(4, llm.values().get(Metric.PREEMPTIONS), "reason=Preempted only, not PodsReadyTimeout");
        assertEquals(64, llm.values().get(Metric.CARDS_TOTAL), "48 a100-80g + 16 h100-80g");
        assertEquals(48, llm.values().get(Metric.CARDS_ALLOCATED), "40 + 8");

        Sched search = second.get(1);
        assertEquals(1, search.values().get(Metric.PENDING));
        assertFalse(search.values().has(Metric.WAIT_P50_S), "nothing admitted between the scrapes");
        assertEquals(0, search.values().get(Metric.PREEMPTIONS), "the family is there, no series of the queue");
        assertEquals(8, search.values().get(Metric.CARDS_TOTAL));
        assertEquals(6, search.values().get(Metric.CARDS_ALLOCATED));
    }

    @Test
    void aRestartedKueueStartsItsCountsOver() throws SchedInputError {
        KueueReader reader = new KueueReader();
        read(reader, "metrics-2.txt", T1);
        // metrics-1 has lower counts: its 40 admissions are read as all there were since the restart; rank 20
        // falls in (64, 128], which holds the 15th to the 20th, so at its top
        Sched llm = read(reader, "metrics-1.txt", T2).get(0);
        assertEquals(128, llm.values().get(Metric.WAIT_P50_S), 1e-9);
    }

    @Test
    void aPageWithoutKueueMetricsSaysSo() {
        SchedInputError e = assertThrows(SchedInputError.class, () -> new KueueReader()
                .read(ExpositionParser.parse("# TYPE go_goroutines gauge\ngo_goroutines 12\n"), T1));
        assertEquals("kueue: no kueue_pending_workloads, kueue_admitted_active_workloads or kueue_cluster_queue_* "
                + "series: is this Kueue's metrics endpoint (port 8080, /metrics)?", e.getMessage());
    }
}
