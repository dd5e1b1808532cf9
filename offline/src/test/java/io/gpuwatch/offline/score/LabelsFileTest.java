package io.gpuwatch.offline.score;

import io.gpuwatch.rules.Severity;
import io.gpuwatch.rules.scope.ScopeKind;
import io.gpuwatch.rules.source.Diagnostic;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LabelsFileTest {
    @Test
    void readsItemsWithAbsoluteTimesAndDefaults() {
        LabelsFile.Load load = LabelsFile.parse("day.labels.yaml", """
                trace: day.trace.gz
                scenario: day
                start: 1000000
                items:
                  - {id: bus, class: hard, kind: xid-79, layer: device, scope: card, node: gpu-1, card: GPU-a,
                     task: train-0, business: chat, at: 600000, until: 630000, within: 30000, severity: page,
                     tolerate: [ticket]}
                  - id: silent
                    class: hard
                    node: gpu-2
                    at: 0
                    within: 60000
                    severity: page
                  - {id: cap, class: lookalike, node: gpu-2, card: GPU-c, queue: null, at: 7200000,
                     must: not-notify}
                """);
        assertEquals(List.of(), load.diagnostics());
        Labels labels = load.labels();
        assertEquals("day.trace.gz", labels.trace());
        assertEquals(3, labels.items().size());
        Label bus = labels.items().get(0);
        assertEquals(new Label("bus", Label.Kind.HARD, "xid-79", "device", ScopeKind.CARD, "gpu-1", "GPU-a",
                "train-0", "chat", null, 1_600_000, 1_630_000, 30_000, Severity.PAGE, List.of(Severity.TICKET),
                null), bus);
        Label silent = labels.items().get(1);
        assertEquals(ScopeKind.NODE, silent.scope());
        assertEquals(1_060_000, silent.until(), "without until the span ends at within");
        Label cap = labels.items().get(2);
        assertEquals(ScopeKind.CARD, cap.scope());
        assertEquals(Label.Must.NOT_NOTIFY, cap.must());
        assertEquals(8_500_000, cap.until(), "a look-alike's span defaults to 5 minutes");
    }

    @Test
    void everyMistakeIsReportedAtItsPlaceAndGivesNoLabels() {
        LabelsFile.Load load = LabelsFile.parse("bad.labels.yaml", """
                start: 1000
                items:
                  - id: a
                    class: hard
                    scope: task
                    node: gpu-1
                    at: 10
                    within: 30s
                    severity: pager
                  - {id: b, class: lookalike, node: n, at: 5, until: 2, must: not-page, colour: red}
                  - {id: a, class: composite, node: gpu-1, at: 0, within: 1, severity: ticket}
                  - {id: c, class: lookalike, node: gpu-1, at: -1}
                """);
        assertNull(load.labels());
        assertEquals(List.of(
                "bad.labels.yaml:5:12: error: scope task needs `task`, the task it is about",
                "bad.labels.yaml:8:13: error: expected a whole number of ms, got `30s`",
                "bad.labels.yaml:9:15: error: unknown value `pager` (page, ticket, notice, inspect)",
                "bad.labels.yaml:10:73: error: unknown item key `colour` (id, class, kind, layer, scope, node, card,"
                        + " task, business, queue, at, until, within, severity, tolerate, must)",
                "bad.labels.yaml:10:54: error: `until` (2) is before `at` (5)",
                "bad.labels.yaml:11:10: error: id `a` is given twice",
                "bad.labels.yaml:12:48: error: must not be negative, got -1",
                "bad.labels.yaml:12:5: error: missing `must`: not-page or not-notify for a look-alike"),
                load.diagnostics().stream().map(Diagnostic::toString).toList());
    }

    @Test
    void brokenYamlAndMissingFilesSayWhere() {
        LabelsFile.Load yaml = LabelsFile.parse("x.yaml", "start: 1\nitems: [\n");
        assertFalse(yaml.ok());
        String problem = yaml.diagnostics().get(0).toString();
        assertTrue(problem.startsWith("x.yaml:3:1: error: not valid YAML: "), problem);
        LabelsFile.Load none = LabelsFile.parse("y.yaml", "items: []\n");
        assertEquals(List.of("y.yaml:1:1: error: missing `start`: the epoch ms the simulation started"),
                none.diagnostics().stream().map(Diagnostic::toString).toList());
    }

    @Test
    void theLabelsOfATraceLieBesideItWithoutTheTraceSuffixes() {
        assertEquals("pretrain-day.labels.yaml", Labels.besideTrace("pretrain-day.trace.gz"));
        assertEquals("night.labels.yaml", Labels.besideTrace("night.jsonl.gz"));
        assertEquals("day.labels.yaml", Labels.besideTrace("day.gwt.gz"));
        assertEquals("plain.labels.yaml", Labels.besideTrace("plain"));
    }
}
