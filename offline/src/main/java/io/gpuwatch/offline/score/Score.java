package io.gpuwatch.offline.score;

import io.gpuwatch.rules.Severity;

import java.util.List;
import java.util.Locale;

/**
 * How well a rule pack did on labelled traces, pooled over all of them: the summary measures, one row per
 * labelled item, one per rule, and the counts of each trace.
 */
public record Score(Ratio hardOnTime, Ratio compositeOnTime, Ratio severityRight, Ratio notificationPrecision,
                    Ratio pagePrecision, Ratio pagesPerPagedIncident, Ratio lookalikesPaged,
                    Ratio lookalikesNotified, Long delayMedianMs, Long delayMaxMs, List<Item> items,
                    List<RuleRow> rules, List<TraceRow> traces) {
    public Score {
        items = List.copyOf(items);
        rules = List.copyOf(rules);
        traces = List.copyOf(traces);
    }

    /** {@code part} of {@code whole}; {@link #value()} is null when there is no whole. */
    public record Ratio(long part, long whole) {
        public Double value() {
            return whole == 0 ? null : (double) part / whole;
        }
    }

    /**
     * The verdict on one labelled item of trace {@code trace}: the most severe covering notification in its span
     * ({@code got}, null for none) with its {@code action} label, the delay of the first covering notification
     * (null for none) and how many covered it.
     */
    public record Item(String trace, Label label, Severity got, String action, Long delayMs, int notifications,
                       int pages, Verdict verdict) {
    }

    /** What became of one item. */
    public enum Verdict {
        /** Caught on time with an accepted severity. */
        OK,
        /** Caught on time, with a severity neither expected nor tolerated. */
        WRONG_SEVERITY,
        /** Covered only after {@code within}. */
        LATE,
        /** Never covered. */
        MISSED,
        /** A look-alike that stayed as quiet as it must. */
        QUIET,
        /** A look-alike that paged. */
        PAGED,
        /** A must-not-notify look-alike that got a notification other than a page. */
        NOTIFIED;

        public String key() {
            return name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    /** One rule's notifications: those that covered some incident ({@code truePositives}) and the others. */
    public record RuleRow(String rule, int notifications, int truePositives) {
        public int falsePositives() {
            return notifications - truePositives;
        }

        public Ratio precision() {
            return new Ratio(truePositives, notifications);
        }
    }

    /** One trace's counts. */
    public record TraceRow(String trace, int incidents, int caughtOnTime, int lookalikes, int lookalikesLoud,
                           int notifications, int truePositives) {
    }
}
