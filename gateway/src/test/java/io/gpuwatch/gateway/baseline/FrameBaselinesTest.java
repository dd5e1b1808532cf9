package io.gpuwatch.gateway.baseline;

import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.replay.Replay;
import io.gpuwatch.gateway.state.QueueState;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Baselines of application metrics are learned per business from app frames, of scheduling metrics per queue
 * from sched frames, and of derived metrics from what was derived; each apart from the others.
 */
class FrameBaselinesTest {
    private static final long T0 = 1_767_571_200_000L;
    private static final long MIN = 60_000;

    private static RuleSet rules() {
        RuleLoad load = RuleSet.parse("f.yml", """
                group: f
                layer: application
                severity: ticket
                rules:
                  - name: ttft
                    scope: task
                    when: ttftP99Ms > baseline(ttftP99Ms).upper(3)
                  - name: cost
                    scope: business
                    when: costPerToken > baseline(costPerToken).upper(3)
                  - name: wait
                    scope: queue
                    when: waitP50s > baseline(waitP50s).upper(3)
                  - name: ecr
                    when: smActiveOfBusy < baseline(smActiveOfBusy).lower(3)
                """);
        assertTrue(load.ok(), load.diagnostics()::toString);
        return load.ruleSet();
    }

    @Test
    void eachFrameTeachesTheBaselinesOfItsOwnMetrics() {
        Replay replay = new Replay(rules(), MIN, s -> { });
        replay.fleet().usePricing(new Pricing("USD", 3.6, List.of(), Map.of()));
        replay.feed("n1", new Hello(1, "n1", "b1", "test", null, null, Map.of(),
                List.of(new CardInfo("GPU-0", 0, "NVIDIA H100", null, null, null, null, null))), T0);
        long seq = 0;
        for (int m = 0; m < 30; m++) {
            long t = T0 + m * MIN;
            replay.feed("n1", new Sample(++seq, t, List.of(new CardReading("GPU-0", MetricValues.builder()
                    .set(Metric.GPU_UTIL, 80).set(Metric.SM_ACTIVE, 0.4).build(),
                    List.of(new ProcessInfo(7, null, "chat", "ana", "ads"))))), t);
            replay.feed("n1", new App(++seq, t, "chat", "ads", "vllm", MetricValues.builder()
                    .set(Metric.TTFT_P99_MS, 300).set(Metric.TOKENS_PER_SEC, 1000).build()), t);
            replay.feed("n1", new Sched(++seq, t, "inference", MetricValues.builder()
                    .set(Metric.WAIT_P50_S, 120).build(), List.of()), t);
        }
        replay.advanceTo(T0 + 31 * MIN);
        BaselineBook book = replay.fleet().baselines();
        long at = T0 + 31 * MIN;
        assertEquals(300, book.get("ads", "ttftP99Ms", at).mean(), 1e-6);
        // 3.6 per card-hour = 0.001 per second, over 1000 tokens/s
        assertEquals(1e-6, book.get("ads", "costPerToken", at).mean(), 1e-12);
        assertEquals(0.5, book.get("ads", "smActiveOfBusy", at).mean(), 1e-6);
        assertEquals(120, book.get(QueueState.baselineKey("inference"), "waitP50s", at).mean(), 1e-6);
        assertSame(Baseline.UNKNOWN, book.get("inference", "waitP50s", at), "a queue is not a business");
        assertSame(Baseline.UNKNOWN, book.get("ads", "waitP50s", at), "the business does not learn queue waits");
    }
}
