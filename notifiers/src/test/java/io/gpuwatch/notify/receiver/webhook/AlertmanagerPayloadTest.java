package io.gpuwatch.notify.receiver.webhook;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Notification.Status;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The webhook body stays bounded however large the labels and annotations a tenant sets. */
class AlertmanagerPayloadTest {
    private static Notification alert(String fingerprint, String description) {
        return new Notification(fingerprint, Status.FIRING, Map.of("alertname", "gpu-hot", "node", "node-01"),
                Map.of("description", description), Instant.parse("2026-12-03T09:01:02Z"), null, "");
    }

    @Test
    void aHugeAnnotationIsCutWithAMarkerInTheAlertAndInTheCommonAnnotations() {
        String huge = "显卡温度过高 ".repeat(100_000);
        JsonObject body = AlertmanagerPayload.build("ops", null, List.of(alert("a1", huge)), "http://gw", 0);
        int bytes = body.toBuffer().length();
        assertTrue(bytes < 2 * AlertmanagerPayload.MAX_VALUE_CHARS * 4 + 4_096, "body is " + bytes + " bytes");
        String expected = huge.substring(0, AlertmanagerPayload.MAX_VALUE_CHARS)
                + "…[cut " + (huge.length() - AlertmanagerPayload.MAX_VALUE_CHARS) + " chars]";
        assertEquals(expected, body.getJsonArray("alerts").getJsonObject(0).getJsonObject("annotations")
                .getString("description"));
        assertEquals(expected, body.getJsonObject("commonAnnotations").getString("description"));
        assertEquals(0, body.getInteger("truncatedAlerts"));
    }

    @Test
    void aBatchOverTheBodyLimitLeavesAlertsOutAndCountsThem() {
        List<Notification> batch = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            batch.add(alert("f" + i, i + " " + "x".repeat(20_000)));
        }
        JsonObject body = AlertmanagerPayload.build("ops", null, batch, "http://gw", 0);
        int bytes = body.toBuffer().length();
        assertTrue(bytes <= AlertmanagerPayload.MAX_BODY_BYTES, "body is " + bytes + " bytes");
        int sent = body.getJsonArray("alerts").size();
        assertTrue(sent > 100, "as many alerts as fit are sent: " + sent);
        assertEquals(400 - sent, body.getInteger("truncatedAlerts"));
    }
}
