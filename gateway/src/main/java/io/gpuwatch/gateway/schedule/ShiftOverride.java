package io.gpuwatch.gateway.schedule;

import java.time.Instant;

/**
 * "Lin covers Wei on 12 Dec 09:00–18:00": from {@code start} until {@code end}, {@code person} is on call in
 * {@code layer} instead of whoever its rotations have, or only instead of {@code replaces} when that is given.
 */
public record ShiftOverride(String layer, String person, String replaces, Instant start, Instant end) {
    public ShiftOverride {
        if (!end.isAfter(start)) {
            throw new IllegalArgumentException("an override must end after it starts");
        }
    }

    /** True when this override takes {@code layer} at {@code at} from {@code scheduled} (null: nobody). */
    boolean applies(String layerName, Instant at, String scheduled) {
        return layer.equals(layerName) && !at.isBefore(start) && at.isBefore(end)
                && (replaces == null || replaces.equals(scheduled));
    }
}
