package io.gpuwatch.gateway.group;

import io.gpuwatch.notify.Notification;

import java.time.Instant;

/** Whether one alert is held back at a moment, by a silence or an inhibition; the aggregator asks at each flush. */
@FunctionalInterface
public interface Muting {
    /** Mutes nothing. */
    Muting NONE = (alert, now) -> false;

    boolean muted(Notification alert, Instant now);
}
