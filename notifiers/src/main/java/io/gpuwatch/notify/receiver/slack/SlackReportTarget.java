package io.gpuwatch.notify.receiver.slack;

import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatReportTarget;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.gpuwatch.notify.receiver.chat.Reply;
import io.gpuwatch.notify.render.Limit;
import io.gpuwatch.notify.render.Markup;
import io.gpuwatch.notify.render.Report;
import io.gpuwatch.notify.render.Text;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Optional;

/**
 * Posts reports to a Slack incoming webhook as Block Kit: a header with the title, a context line with the
 * period (and the trend as text when there is no chart), an image block with the chart when the report has a
 * URL for one, and one mrkdwn section per report section, each within Slack's 3,000 characters. Answers are
 * judged as for alert messages.
 */
public final class SlackReportTarget extends ChatReportTarget<Buffer> {
    static final Limit CONTEXT = Limit.chars(3_000);

    /** A target that sends with {@code sending}. */
    public SlackReportTarget(String name, SlackConfig config, ChatSending sending) {
        super(name, new ChatDelivery(name, config.url().reveal(), List.of(), config.settings(), sending), true,
                "Slack's block limits", r -> build(r).map(JsonObject::toBuffer),
                body -> new ChatDelivery.Request(config.url().reveal(), body), Reply::byStatus);
    }

    /** The Block Kit message, sections cut by whole lines until every block is within Slack's limits. */
    static Optional<JsonObject> build(Report report) {
        return report.fit(SlackReportTarget::blocks, SlackReportTarget::fits);
    }

    private static JsonObject blocks(Report r) {
        String title = SlackMessage.HEADER.line(r.title());
        JsonArray blocks = new JsonArray().add(new JsonObject().put("type", "header")
                .put("text", new JsonObject().put("type", "plain_text").put("text", title).put("emoji", true)));
        Text.Builder context = new Text.Builder().value(r.period());
        if (r.chartUrl() == null && !r.trend().isEmpty()) {
            context.literal("\n").value(r.trend());
        }
        // Cut before escaping, so no entity is split.
        blocks.add(new JsonObject().put("type", "context").put("elements", new JsonArray()
                .add(new JsonObject().put("type", "mrkdwn")
                        .put("text", context.build().cut(CONTEXT, Markup.SLACK_MRKDWN)))));
        if (r.chartUrl() != null) {
            blocks.add(new JsonObject().put("type", "image").put("image_url", r.chartUrl())
                    .put("alt_text", r.trend().isEmpty() ? "chart of the period" : r.trend()));
        }
        for (Report.Section s : r.sections()) {
            StringBuilder text = new StringBuilder("*").append(Markup.SLACK_MRKDWN.escape(s.heading())).append('*');
            for (String line : s.shown()) {
                text.append('\n').append(Markup.SLACK_MRKDWN.escape(line));
            }
            blocks.add(new JsonObject().put("type", "section")
                    .put("text", new JsonObject().put("type", "mrkdwn").put("text", text.toString())));
        }
        return new JsonObject().put("text", title).put("blocks", blocks);
    }

    private static boolean fits(JsonObject message) {
        for (Object b : message.getJsonArray("blocks")) {
            JsonObject block = (JsonObject) b;
            if (block.getString("type").equals("section")
                    && !SlackMessage.SECTION.fits(block.getJsonObject("text").getString("text"))) {
                return false;
            }
        }
        return true;
    }
}
