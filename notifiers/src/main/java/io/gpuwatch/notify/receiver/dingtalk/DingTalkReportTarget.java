package io.gpuwatch.notify.receiver.dingtalk;

import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatReportTarget;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.gpuwatch.notify.render.Markup;
import io.gpuwatch.notify.render.Report;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Optional;

/**
 * Posts reports to a DingTalk custom robot as one markdown message (title heading, period, trend, then a
 * sub-heading and list per section), cut by whole lines to stay within 20,000 bytes, the URL signed on every
 * attempt as for alert messages. DingTalk markdown shows images only from a URL its servers fetch, and a media
 * upload needs an app token a robot does not have, so reports carry the trend as a text sparkline here.
 */
public final class DingTalkReportTarget extends ChatReportTarget<Buffer> {
    /** A target that sends with {@code sending}. */
    public DingTalkReportTarget(String name, DingTalkConfig config, ChatSending sending) {
        super(name, new ChatDelivery(name, config.url().reveal(),
                config.signingSecret() == null ? List.of() : List.of(config.signingSecret().reveal()),
                config.settings(), sending), false,
                "DingTalk's " + DingTalkMessage.MAX_BODY_BYTES + "-byte limit", DingTalkReportTarget::build,
                message -> new ChatDelivery.Request(DingTalkReceiver.signedUrl(config, sending.clock()), message),
                DingTalkReceiver::judge);
    }

    /** The message as sent, within {@link DingTalkMessage#MAX_BODY_BYTES}. */
    static Optional<Buffer> build(Report report) {
        return report.withoutChart().fit(DingTalkReportTarget::message,
                b -> b.length() <= DingTalkMessage.MAX_BODY_BYTES);
    }

    private static Buffer message(Report r) {
        String title = DingTalkMessage.TITLE.line(r.title());
        // Report lines name nodes and rules, which tenants name, so the markdown text escapes them like alert
        // slot values; the title field is a plain preview.
        Markup md = Markup.LOOKALIKE;
        StringBuilder text = new StringBuilder("### ").append(md.escape(title)).append("\n\n")
                .append(md.escape(r.period()));
        if (!r.trend().isEmpty()) {
            text.append("\n\n").append(md.escape(r.trend()));
        }
        for (Report.Section s : r.sections()) {
            text.append("\n\n#### ").append(md.escape(s.heading())).append('\n');
            for (String line : s.shown()) {
                text.append("\n- ").append(md.escape(line));
            }
        }
        return new JsonObject()
                .put("msgtype", "markdown")
                .put("markdown", new JsonObject().put("title", title).put("text", text.toString()))
                .toBuffer();
    }
}
