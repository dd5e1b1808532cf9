package io.gpuwatch.notify.receiver.wecom;

import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatReportTarget;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.gpuwatch.notify.render.Markup;
import io.gpuwatch.notify.render.Report;
import io.gpuwatch.notify.render.Text;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Optional;

/**
 * Posts reports to a WeCom group robot as one markdown message (bold title, period, trend, then each section),
 * cut by whole lines to stay within WeCom's 4,096 content bytes. A robot's image message takes the picture
 * inline as Base64 with at most 2 MB but no text, and markdown shows no images, so reports carry the trend as
 * a text sparkline here.
 */
public final class WeComReportTarget extends ChatReportTarget<Buffer> {
    /** A target that sends with {@code sending}. */
    public WeComReportTarget(String name, WeComConfig config, ChatSending sending) {
        super(name, new ChatDelivery(name, config.url().reveal(), List.of(), config.settings(), sending), false,
                "WeCom's " + WeComMessage.CONTENT.max() + "-byte content limit",
                r -> build(r).map(WeComReportTarget::markdown),
                body -> new ChatDelivery.Request(config.url().reveal(), body), WeComReceiver::judge);
    }

    /** The markdown content as sent, within {@link WeComMessage#CONTENT}. */
    static Optional<String> build(Report report) {
        return report.withoutChart().fit(WeComReportTarget::content, WeComMessage.CONTENT::fits);
    }

    private static Buffer markdown(String content) {
        return new JsonObject().put("msgtype", "markdown")
                .put("markdown", new JsonObject().put("content", content)).toBuffer();
    }

    private static String content(Report r) {
        // Report lines name nodes and rules, which tenants name, so they are escaped like alert slot values.
        Markup md = Markup.LOOKALIKE;
        StringBuilder text = new StringBuilder("**").append(Text.value(r.title()).line().cut(WeComMessage.TITLE, md))
                .append("**\n").append(md.escape(r.period()));
        if (!r.trend().isEmpty()) {
            text.append('\n').append(md.escape(r.trend()));
        }
        for (Report.Section s : r.sections()) {
            text.append("\n**").append(md.escape(s.heading())).append("**");
            for (String line : s.shown()) {
                text.append("\n> ").append(md.escape(line));
            }
        }
        return text.toString();
    }
}
