package io.gpuwatch.gateway.coverage;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The metrics a rule needs: named ones, those a derived metric is computed from, never words in quotes. */
class RuleReadsTest {
    @Test
    void namedAndDerivedMetricsCountQuotedTextDoesNot() {
        RuleLoad load = RuleSet.parse("r.yml", """
                group: g
                layer: device
                scope: card
                rules:
                  - name: starved
                    severity: inspect
                    when: smActiveOfBusy < 0.3 && labels.pool != 'tempC' && avg(powerW, 5m) > 100
                    keep_firing_while: memUsedBytes > 0
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        assertEquals(Set.of(Metric.GPU_UTIL, Metric.SM_ACTIVE, Metric.POWER_W, Metric.MEM_USED_BYTES),
                RuleReads.of(load.ruleSet().rules().get(0)));
    }
}
