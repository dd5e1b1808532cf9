package io.gpuwatch.notify.receiver.teams;

import static org.junit.jupiter.api.Assertions.assertTrue;
import io.gpuwatch.notify.receiver.chat.Hostile;
import io.gpuwatch.notify.render.Markup;
import io.gpuwatch.notify.render.Report;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.gpuwatch.notify.receiver.chat.Alerts.HOSTILE;
import static io.gpuwatch.notify.receiver.chat.Alerts.HOSTILE_TWIN;
import static io.gpuwatch.notify.receiver.chat.Alerts.HOT_RESOLVED;
import static io.gpuwatch.notify.receiver.chat.Alerts.XID_1;
import static io.gpuwatch.notify.receiver.chat.Alerts.flood;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** Every card shape gpuwatch sends to Teams passes the official Adaptive Card 1.5 schema. */
class TeamsCardSchemaTest {
    private static JsonObject alertCard(List<io.gpuwatch.notify.Notification> batch, boolean firing) {
        Buffer body = TeamsCard.build(TeamsConfig.DEFAULT_LAYOUT.render(batch, Markup.COMMONMARK), firing)
                .orElseThrow();
        return body.toJsonObject();
    }

    @Test
    void alertCardsValidate() {
        AdaptiveCardSchema.assertValid(alertCard(List.of(XID_1, HOT_RESOLVED), true));
        AdaptiveCardSchema.assertValid(alertCard(List.of(HOT_RESOLVED), false));
        AdaptiveCardSchema.assertValid(alertCard(flood(300), true));
        AdaptiveCardSchema.assertValid(alertCard(List.of(HOSTILE, HOSTILE_TWIN), true));
    }

    @Test
    void reportCardsValidateWithAndWithoutAChart() {
        Report report = new Report("Daily GPU report", "2026-12-02 09:00 to 2026-12-03 09:00 UTC",
                List.of(new Report.Section("Pages", List.of("xid-fallen-off-bus ×3", "gpu-hot ×1"), ""),
                        new Report.Section("Idle", List.of(), "none")), "▁▂▃█", "https://gw.example/chart.png");
        AdaptiveCardSchema.assertValid(TeamsReportTarget.build(report).orElseThrow().toJsonObject());
        AdaptiveCardSchema.assertValid(TeamsReportTarget.build(report.withoutChart()).orElseThrow().toJsonObject());
    }

    @Test
    void theSchemaRejectsWhatTeamsWouldNotRender() {
        JsonObject card = alertCard(List.of(XID_1), true).getJsonArray("attachments").getJsonObject(0)
                .getJsonObject("content").copy();
        card.remove("msteams");
        JsonObject wrongColour = card.copy();
        wrongColour.getJsonArray("body").getJsonObject(0).put("color", "Red");
        assertFalse(AdaptiveCardSchema.problems(wrongColour).isEmpty(), "an unknown colour is refused");
        JsonObject unknownElement = card.copy();
        unknownElement.put("body", new JsonArray().add(new JsonObject().put("type", "Paragraph").put("text", "x")));
        assertFalse(AdaptiveCardSchema.problems(unknownElement).isEmpty(), "an unknown element type is refused");
    }

    @Test
    void tenantNamesInReportLinesAreEscapedAndTheCardValidates() {
        JsonObject message = TeamsReportTarget.build(Hostile.report()).orElseThrow().toJsonObject();
        AdaptiveCardSchema.assertValid(message);
        StringBuilder texts = new StringBuilder();
        message.getJsonArray("attachments").getJsonObject(0).getJsonObject("content").getJsonArray("body")
                .forEach(b -> texts.append(((JsonObject) b).getString("text", "")).append('\n'));
        Hostile.assertNoneOf(texts.toString(), Hostile.LIVE);
        assertTrue(texts.toString().contains("\\<at id=all\\>\\</at\\> \\<!channel\\>"), texts.toString());
    }
}
