package io.gpuwatch.probe.sched.volcano;

import io.gpuwatch.probe.app.ExpositionParser;
import io.gpuwatch.probe.sched.Fixtures;
import io.gpuwatch.probe.sched.SchedInputError;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.Sched;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** Two scrapes of the Volcano scheduler's /metrics 30 s apart (resources/sched/volcano). */
class VolcanoReaderTest {
    private static final long T1 = 1764700000_000L;
    private static final long T2 = T1 + 30_000;

    private static List<Sched> read(VolcanoReader r, String file, long at) throws SchedInputError {
        return r.read(ExpositionParser.parse(Fixtures.read("volcano/" + file)), at);
    }

    @Test
    void theSchedulerAndEachQueue() throws SchedInputError {
        VolcanoReader reader = new VolcanoReader("volcano-east");
        assertFalse(read(reader, "metrics-1.txt", T1).get(0).values().has(Metric.WAIT_P50_S));
        List<Sched> frames = read(reader, "metrics-2.txt", T2);
        assertEquals(List.of("volcano-east", "llm", "search"), frames.stream().map(Sched::queue).toList());

        Sched scheduler = frames.get(0);
        assertEquals(4, scheduler.values().get(Metric.PENDING), "volcano_unschedule_job_count");
        assertEquals(14, scheduler.values().get(Metric.PREEMPTIONS), "volcano_total_preemption_attempts");
        // 10 jobs scheduled between the scrapes: 5 in (256, 512] ms, 4 in (2048, 4096], 1 above 16384; p50 is
        // rank 5, the top of (256, 512]; p90 rank 9, the top of (2048, 4096]
        assertEquals(0.512, scheduler.values().get(Metric.WAIT_P50_S), 1e-9);
        assertEquals(4.096, scheduler.values().get(Metric.WAIT_P90_S), 1e-9);

        Sched llm = frames.get(1);
        assertEquals(5, llm.values().get(Metric.PENDING), "3 pending + 2 inqueue pod groups");
        assertEquals(7, llm.values().get(Metric.RUNNING));
        // its jobs' scheduling durations: 12.5, 61 and 905 s
        assertEquals(61, llm.values().get(Metric.WAIT_P50_S), 1e-9);
        assertEquals(905, llm.values().get(Metric.WAIT_P90_S), 1e-9);
        assertEquals(905, llm.values().get(Metric.WAIT_MAX_S), 1e-9);
        assertEquals(56, llm.values().get(Metric.CARDS_ALLOCATED));
        assertEquals(88, llm.values().get(Metric.REQUESTED_CARDS));
        assertEquals(64, llm.values().get(Metric.CARDS_TOTAL), "capacity, where the queue has one");

        Sched search = frames.get(2);
        assertEquals(0, search.values().get(Metric.PENDING));
        assertEquals(16, search.values().get(Metric.CARDS_TOTAL), "deserved, without a capacity");
        assertEquals(4.2, search.values().get(Metric.WAIT_MAX_S), 1e-9);
    }
}
