package io.gpuwatch.gateway.schedule;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One level of a schedule (primary, secondary…): its rotations, of which the first that has someone on call at an
 * instant decides; several rotations with daily hours in their own zones make a follow-the-sun layer.
 */
public record Layer(String name, List<Rotation> rotations) {
    public Layer {
        rotations = List.copyOf(rotations);
    }

    /** Who the rotations have on call at {@code at}, before overrides. */
    public Optional<String> scheduled(Instant at) {
        for (Rotation r : rotations) {
            Optional<String> who = r.onCall(at);
            if (who.isPresent()) {
                return who;
            }
        }
        return Optional.empty();
    }
}
