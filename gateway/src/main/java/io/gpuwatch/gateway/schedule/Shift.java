package io.gpuwatch.gateway.schedule;

import java.time.Instant;

/**
 * A stretch of time during which one person is on call in one layer of a schedule.
 *
 * @param person   the person id
 * @param override true when an override, not a rotation, put them there
 */
public record Shift(String schedule, String layer, String person, Instant start, Instant end, boolean override) {
}
