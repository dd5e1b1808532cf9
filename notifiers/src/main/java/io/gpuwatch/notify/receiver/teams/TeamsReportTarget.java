package io.gpuwatch.notify.receiver.teams;

import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatReportTarget;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.gpuwatch.notify.receiver.chat.Reply;
import io.gpuwatch.notify.render.Markup;
import io.gpuwatch.notify.render.Report;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Optional;

/**
 * Posts reports to a Teams Workflows webhook as one Adaptive Card 1.5: the title as a heading, the period, the
 * chart as an Image element when the report has a URL for one (else the trend as text), then each section's
 * heading and lines as TextBlocks, cut by whole lines so the body stays under Teams' message limit.
 */
public final class TeamsReportTarget extends ChatReportTarget<Buffer> {
    /** A target that sends with {@code sending}. */
    public TeamsReportTarget(String name, TeamsConfig config, ChatSending sending) {
        super(name, new ChatDelivery(name, config.url().reveal(), List.of(), config.settings(), sending), true,
                "Teams' " + TeamsCard.MAX_BODY_BYTES + "-byte message limit", TeamsReportTarget::build,
                card -> new ChatDelivery.Request(config.url().reveal(), card), Reply::byStatus);
    }

    /** The card as sent, within {@link TeamsCard#MAX_BODY_BYTES}. */
    static Optional<Buffer> build(Report report) {
        return report.fit(TeamsReportTarget::card, b -> b.length() <= TeamsCard.MAX_BODY_BYTES);
    }

    private static Buffer card(Report r) {
        JsonArray body = new JsonArray()
                .add(text(TeamsCard.TITLE.line(r.title())).put("weight", "Bolder").put("size", "Medium")
                        .put("style", "heading"))
                .add(text(r.period()).put("isSubtle", true).put("spacing", "None"));
        if (r.chartUrl() != null) {
            body.add(new JsonObject().put("type", "Image").put("url", r.chartUrl())
                    .put("altText", r.trend().isEmpty() ? "chart of the period" : r.trend()));
        } else if (!r.trend().isEmpty()) {
            body.add(text(r.trend()).put("fontType", "Monospace"));
        }
        for (Report.Section s : r.sections()) {
            body.add(text(s.heading()).put("weight", "Bolder").put("spacing", "Medium"));
            for (String line : s.shown()) {
                body.add(text(line).put("spacing", "None"));
            }
        }
        return TeamsCard.message(body);
    }

    // Report lines name nodes and rules, which tenants name, so they are escaped like alert slot values.
    private static JsonObject text(String text) {
        return new JsonObject().put("type", "TextBlock").put("text", Markup.COMMONMARK.escape(text))
                .put("wrap", true);
    }
}
