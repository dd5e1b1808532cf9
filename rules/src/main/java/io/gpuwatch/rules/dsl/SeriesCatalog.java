package io.gpuwatch.rules.dsl;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.metric.DerivedMetric;
import io.gpuwatch.rules.metric.SampleDerivation;
import io.gpuwatch.rules.metric.SeriesSpec;
import io.gpuwatch.rules.metric.UnitRange;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The series the rules of one load read, collected while they compile: each gets an id on first use and
 * keeps the longest window asked of it. Also tracks the longest event window, for the load's horizon.
 */
public final class SeriesCatalog {
    private final List<Entry> entries = new ArrayList<>();
    private final Map<String, Integer> byName = new HashMap<>();
    private final Set<String> baselined = new TreeSet<>();
    private long eventWindowMs;

    private static final class Entry {
        final String name;
        final Metric metric;
        final SampleDerivation derivation;
        final Metric.Source source;
        final UnitRange range;
        long windowMs;
        boolean transitions;

        Entry(String name, Metric metric, SampleDerivation derivation, Metric.Source source, UnitRange range,
              long windowMs) {
            this.name = name;
            this.metric = metric;
            this.derivation = derivation;
            this.source = source;
            this.range = range;
            this.windowMs = windowMs;
        }
    }

    /** The id of the raw series of {@code metric}, widened to {@code windowMs}. */
    int raw(Metric metric, long windowMs) {
        return raw(metric, windowMs, false);
    }

    /** Like {@link #raw(Metric, long)}, also asking the series to keep its transitions when {@code transitions}. */
    int raw(Metric metric, long windowMs, boolean transitions) {
        Integer id = byName.get(metric.field());
        if (id == null) {
            id = add(new Entry(metric.field(), metric, null, metric.source(), UnitRange.of(metric.kind(), metric.unit()),
                    windowMs));
        } else {
            widen(id, windowMs);
        }
        entries.get(id).transitions |= transitions;
        return id;
    }

    /** The id of an already registered derived series, or -1. */
    int derivedId(String name) {
        Integer id = byName.get(name);
        return id == null ? -1 : id;
    }

    /** Registers a new series derived per card sample. */
    int derived(String name, SampleDerivation derivation, long windowMs) {
        return add(new Entry(name, null, derivation, Metric.Source.CARD, UnitRange.ANY, windowMs));
    }

    /** The id of the series of a derived metric, registered on first use and widened to {@code windowMs}. */
    int derived(DerivedMetric metric, SampleDerivation derivation, long windowMs, boolean transitions) {
        Integer id = byName.get(metric.field());
        if (id == null) {
            id = add(new Entry(metric.field(), null, derivation, metric.source(),
                    UnitRange.of(metric.kind(), metric.unit()), windowMs));
        } else {
            widen(id, windowMs);
        }
        entries.get(id).transitions |= transitions;
        return id;
    }

    void widen(int id, long windowMs) {
        Entry e = entries.get(id);
        e.windowMs = Math.max(e.windowMs, windowMs);
    }

    /** Notes that a rule reads the baseline of the series {@code name}, which the gateway must then learn. */
    void baselined(String name) {
        baselined.add(name);
    }

    /** The names of the series (metrics, derived metrics) rules read through {@code baseline(…)}. */
    public Set<String> baselined() {
        return Collections.unmodifiableSet(new TreeSet<>(baselined));
    }

    void events(long windowMs) {
        eventWindowMs = Math.max(eventWindowMs, windowMs);
    }

    private int add(Entry e) {
        int id = entries.size();
        entries.add(e);
        byName.put(e.name, id);
        return id;
    }

    /** The series collected so far, by id. */
    public List<SeriesSpec> specs() {
        List<SeriesSpec> out = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            out.add(new SeriesSpec(i, e.name, e.metric, e.derivation, e.source, e.windowMs, e.transitions, e.range));
        }
        return List.copyOf(out);
    }

    /** The longest window of any series or event count. */
    public long horizonMs() {
        long h = eventWindowMs;
        for (Entry e : entries) {
            h = Math.max(h, e.windowMs);
        }
        return h;
    }
}
