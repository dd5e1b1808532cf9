package io.gpuwatch.gateway.state;

import io.gpuwatch.gateway.window.MetricWindow;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.rules.metric.SeriesSpec;
import io.gpuwatch.rules.scope.ScopeView;

import java.util.ArrayList;
import java.util.List;

/**
 * The windows of a task or queue over the series of one metric source (application or scheduling readings, and
 * what is derived from them); series of other sources have no window here ({@link #window} gives null), since the
 * scope pools or lacks them.
 */
final class WindowSet {
    private final Metric.Source source;
    private List<SeriesSpec> specs = List.of();
    private MetricWindow[] windows = new MetricWindow[0];

    WindowSet(Metric.Source source) {
        this.source = source;
    }

    /** Switches to a new rule set's series; windows of series that stay keep their data. */
    void useSeries(List<SeriesSpec> next) {
        MetricWindow[] nextWindows = new MetricWindow[next.size()];
        for (SeriesSpec spec : next) {
            if (spec.source() != source || (spec.metric() == null && spec.derivation() == null)) {
                continue;
            }
            MetricWindow kept = null;
            for (SeriesSpec old : specs) {
                MetricWindow w = windows[old.id()];
                if (w != null && old.name().equals(spec.name()) && old.windowMs() >= spec.windowMs()
                        && (w.keepsTransitions() || !spec.transitions())) {
                    kept = w;
                }
            }
            nextWindows[spec.id()] = kept != null ? kept
                    : new MetricWindow(FleetState.shapeFor(spec), spec.transitions());
        }
        specs = List.copyOf(next);
        windows = nextWindows;
    }

    /** A copy of each window, for a checkpoint. */
    List<CardImage.Window> images() {
        List<CardImage.Window> out = new ArrayList<>();
        for (SeriesSpec spec : specs) {
            MetricWindow w = windows[spec.id()];
            if (w != null) {
                out.add(CardImage.Window.of(spec.name(), w));
            }
        }
        return out;
    }

    /** Takes back the windows a checkpoint held of series still read the same way; returns how many it could not. */
    int restore(List<CardImage.Window> images) {
        int skipped = 0;
        for (CardImage.Window image : images) {
            boolean taken = false;
            for (SeriesSpec spec : specs) {
                MetricWindow w = windows[spec.id()];
                taken = w != null && image.restoreInto(spec.name(), w);
                if (taken) {
                    break;
                }
            }
            skipped += taken ? 0 : 1;
        }
        return skipped;
    }

    /** True when the series of this id is one this set keeps a window for. */
    boolean holds(int id) {
        return id >= 0 && id < windows.length && windows[id] != null;
    }

    MetricWindow window(int id) {
        return windows[id];
    }

    /**
     * Appends a frame's readings, then the series derived from them, read through {@code scope} (the task or queue
     * that owns the set); {@code derived} gets each derived value by series id.
     */
    void append(long ts, MetricValues values, ScopeView scope, double[] derived) {
        for (SeriesSpec spec : specs) {
            MetricWindow w = windows[spec.id()];
            if (w != null && spec.metric() != null) {
                w.append(ts, values.get(spec.metric()));
            }
        }
        at(ts);
        for (SeriesSpec spec : specs) {
            MetricWindow w = windows[spec.id()];
            if (w != null && spec.metric() == null) {
                double v = spec.derivation().derive(scope);
                if (spec.id() < derived.length) {
                    derived[spec.id()] = v;
                }
                w.append(ts, v);
                w.at(ts);
            }
        }
    }

    void at(long now) {
        for (MetricWindow w : windows) {
            if (w != null) {
                w.at(now);
            }
        }
    }

    long retainedBytes() {
        long total = 0;
        for (MetricWindow w : windows) {
            if (w != null) {
                total += w.retainedBytes() + w.runningBytes();
            }
        }
        return total;
    }
}
