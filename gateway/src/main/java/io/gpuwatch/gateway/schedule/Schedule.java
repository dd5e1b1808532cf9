package io.gpuwatch.gateway.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * An on-call schedule: layers (primary, secondary…) of rotations, and overrides on top. Pure: every answer is
 * about the instant asked, so tests and the calendar export use any clock.
 *
 * @param zone the zone the schedule is written in, for printing and for overrides given without an offset
 */
public record Schedule(String id, String name, ZoneId zone, List<Layer> layers, List<ShiftOverride> overrides) {
    /** How far ahead {@link #now} looks for the end of a shift. */
    public static final Duration HORIZON = Duration.ofDays(92);
    /** How far back {@link #now} looks for the start of a shift. */
    public static final Duration LOOK_BACK = Duration.ofDays(31);

    public Schedule {
        layers = List.copyOf(layers);
        overrides = List.copyOf(overrides);
    }

    /** The layer named {@code name}. */
    public Optional<Layer> layer(String name) {
        return layers.stream().filter(l -> l.name().equals(name)).findFirst();
    }

    /** Who is on call in {@code layer} at {@code at}, overrides applied (the last one given wins), or nobody. */
    public Optional<String> onCall(Layer layer, Instant at) {
        String scheduled = layer.scheduled(at).orElse(null);
        String who = scheduled;
        for (ShiftOverride o : overrides) {
            if (o.applies(layer.name(), at, scheduled)) {
                who = o.person();
            }
        }
        return Optional.ofNullable(who);
    }

    private boolean overridden(Layer layer, Instant at) {
        String scheduled = layer.scheduled(at).orElse(null);
        return overrides.stream().anyMatch(o -> o.applies(layer.name(), at, scheduled));
    }

    /**
     * The shifts of {@code layer} that overlap {@code [from, to)}, cut to it, in order; a time with nobody on call
     * has no shift. Between two consecutive instants at which a hand-off, a daily window or an override starts or
     * ends, nothing changes, so the answer at each such instant holds until the next.
     */
    public List<Shift> shifts(Layer layer, Instant from, Instant to) {
        TreeSet<Instant> edges = new TreeSet<>();
        edges.add(from);
        edges.add(to);
        for (Rotation r : layer.rotations()) {
            r.changes(from, to, edges);
        }
        for (ShiftOverride o : overrides) {
            if (o.layer().equals(layer.name())) {
                for (Instant edge : new Instant[] {o.start(), o.end()}) {
                    if (edge.isAfter(from) && edge.isBefore(to)) {
                        edges.add(edge);
                    }
                }
            }
        }
        List<Shift> out = new ArrayList<>();
        Instant previous = null;
        for (Instant edge : edges) {
            if (previous != null) {
                String who = onCall(layer, previous).orElse(null);
                boolean override = who != null && overridden(layer, previous);
                Shift last = out.isEmpty() ? null : out.get(out.size() - 1);
                if (last != null && last.end().equals(previous) && last.person().equals(who)
                        && last.override() == override) {
                    out.set(out.size() - 1, new Shift(id, layer.name(), who, last.start(), edge, override));
                } else if (who != null) {
                    out.add(new Shift(id, layer.name(), who, previous, edge, override));
                }
            }
            previous = edge;
        }
        return out;
    }

    /**
     * Who is on call at {@code at} in each layer: the shift running then, from its hand-off (or the look-back horizon)
     * to the next (or the look-ahead horizon when nothing changes before it), or empty for a layer with nobody.
     */
    public List<Optional<Shift>> now(Instant at) {
        List<Optional<Shift>> out = new ArrayList<>();
        for (Layer layer : layers) {
            out.add(shifts(layer, at.minus(LOOK_BACK), at.plus(HORIZON)).stream()
                    .filter(s -> !s.start().isAfter(at) && s.end().isAfter(at)).findFirst());
        }
        return out;
    }

    /** True when a shift {@link #now} gave for {@code at} started before its look-back, so its start is unknown. */
    public static boolean startsBeforeLookBack(Shift shift, Instant at) {
        return !shift.start().isAfter(at.minus(LOOK_BACK));
    }

    /** True when a shift {@link #now} gave for {@code at} runs past its horizon, so its end is unknown. */
    public static boolean endsAfterHorizon(Shift shift, Instant at) {
        return !shift.end().isBefore(at.plus(HORIZON));
    }
}
