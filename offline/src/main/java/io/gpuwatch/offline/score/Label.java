package io.gpuwatch.offline.score;

import io.gpuwatch.rules.Severity;
import io.gpuwatch.rules.scope.ScopeKind;

import java.util.List;
import java.util.Locale;

/**
 * One labelled item of a trace: an incident a good rule pack must catch, or a benign look-alike it must stay quiet
 * about. Times are epoch ms of the trace ({@code at} the start, {@code until} the end of the span in which a
 * notification on the scope still belongs to this label). {@code severity}, {@code tolerate} and
 * {@code withinMs} are for incidents, {@code must} for look-alikes.
 */
public record Label(String id, Kind kind, String name, String layer, ScopeKind scope, String node, String card,
                    String task, String business, String queue, long at, long until, long withinMs,
                    Severity severity, List<Severity> tolerate, Must must) {
    public Label {
        tolerate = List.copyOf(tolerate);
    }

    /** What the item is. */
    public enum Kind {
        /** A hard fault. */
        HARD,
        /** A trend or composite incident. */
        COMPOSITE,
        /** Benign behaviour that looks like a fault. */
        LOOKALIKE;

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What a look-alike must not cause. */
    public enum Must {
        NOT_PAGE, NOT_NOTIFY;

        public String key() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    public boolean incident() {
        return kind != Kind.LOOKALIKE;
    }

    /** Whether {@code got} is the expected or a tolerated severity. */
    public boolean accepts(Severity got) {
        return got == severity || tolerate.contains(got);
    }
}
