package io.gpuwatch.offline.ruletest;

import io.gpuwatch.rules.source.SourceText.Position;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** A rule test file as read: the rule files it loads and its tests, every part with the place it was written. */
record TestFile(String file, List<Path> ruleFiles, long evaluationIntervalMs, List<Case> tests) {
    TestFile {
        ruleFiles = List.copyOf(ruleFiles);
        tests = List.copyOf(tests);
    }

    /**
     * One test: a fleet, what it sends, and what must be firing when; {@code cardHourPrice} prices every card
     * (NaN: no price, so {@code costPerToken} is NaN).
     */
    record Case(String name, Position place, long intervalMs, List<NodeSetup> nodes, List<InputSeries> series,
                List<InputEvent> events, List<AlertCheck> checks, List<SeededBaseline> baselines,
                double cardHourPrice, List<ScheduledTask> scheduled) {
        Case {
            scheduled = List.copyOf(scheduled);
            baselines = List.copyOf(baselines);
            nodes = List.copyOf(nodes);
            series = List.copyOf(series);
            events = List.copyOf(events);
            checks = List.copyOf(checks);
        }
    }

    record NodeSetup(String name, Map<String, String> labels, List<CardSetup> cards) {
        NodeSetup {
            labels = Map.copyOf(labels);
            cards = List.copyOf(cards);
        }
    }

    /** A card of a node; {@code name} may be null (the card is then named by its uuid). */
    record CardSetup(String uuid, String name, int index, List<ProcessSetup> processes) {
        CardSetup {
            processes = List.copyOf(processes);
        }
    }

    /**
     * A task a scheduler lists in {@code queue}'s sched frames from {@code fromMs} (inclusive) until
     * {@code untilMs} (exclusive) of test time, as {@code listing} says it.
     */
    record ScheduledTask(String queue, io.gpuwatch.protocol.SchedTask listing, long fromMs, long untilMs) {
        boolean listedAt(long ms) {
            return ms >= fromMs && ms < untilMs;
        }
    }

    /** A process on a card from {@code fromMs} (inclusive) until {@code untilMs} (exclusive) of test time. */
    record ProcessSetup(long pid, String task, String owner, String business, long fromMs, long untilMs) {
        boolean runsAt(long ms) {
            return ms >= fromMs && ms < untilMs;
        }
    }

    /**
     * One metric, a value per sample interval, of one card ({@code uuid} and its {@code node}), of one task
     * ({@code task}, with {@code business} when given: an application metric, relayed by {@code node}, the
     * test's first node when null) or of one queue ({@code queue}: a scheduling metric); the fields of the other
     * two are null.
     */
    record InputSeries(Position place, String node, String uuid, String task, String business, String queue,
                       String metric, SeriesNotation.Expanded values) {
    }

    /** What is normal for a metric of a business from the test's start, as if a gateway had learned it. */
    record SeededBaseline(Position place, String business, String metric, double mean, double std) {
    }

    /** An event at {@code atMs} of test time; {@code uuid} null when node-wide, {@code xid} null but for XIDs. */
    record InputEvent(long atMs, String node, String uuid, String kind, Integer xid, String text, Long pid) {
    }

    /** What must hold at {@code evalMs}: the firing alerts of one rule, and optionally its notification counts. */
    record AlertCheck(Position place, long evalMs, String evalText, String alertname, List<ExpectedAlert> alerts,
                      ExpectedNotifications notifications) {
        AlertCheck {
            alerts = List.copyOf(alerts);
        }
    }

    /** An expected alert: these labels with these values (others may be present), and texts when given. */
    record ExpectedAlert(Map<String, String> labels, String summary, String description) {
        ExpectedAlert {
            labels = Map.copyOf(labels);
        }
    }

    /** Counts of notifications the rule sent up to the check's time; null fields are not checked. */
    record ExpectedNotifications(Integer firing, Integer resolved) {
    }
}
