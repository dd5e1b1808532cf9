package io.gpuwatch.notify;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class NotificationTest {
    private static final Instant T = Instant.parse("2026-12-03T09:01:02Z");

    @Test
    void firingHasNoEndAndResolvedNeedsOne() {
        assertThrows(IllegalArgumentException.class, () -> new Notification("fp", Notification.Status.FIRING,
                Map.of(), Map.of(), T, T.plusSeconds(1), ""));
        assertThrows(IllegalArgumentException.class, () -> new Notification("fp", Notification.Status.RESOLVED,
                Map.of(), Map.of(), T, null, ""));
    }

    @Test
    void labelsAreCopiedSoLaterChangesDoNotLeakIn() {
        Map<String, String> labels = new HashMap<>(Map.of("alertname", "a"));
        Notification n = new Notification("fp", Notification.Status.FIRING, labels, Map.of(), T, null, null);
        labels.put("alertname", "b");
        assertEquals("a", n.labels().get("alertname"));
        assertEquals("", n.generatorUrl());
        assertThrows(UnsupportedOperationException.class, () -> n.labels().put("x", "y"));
    }
}
