package io.gpuwatch.notify.receiver.feishu;

import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatReportTarget;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.gpuwatch.notify.render.Markup;
import io.gpuwatch.notify.render.Report;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Optional;

/**
 * Posts reports to a Feishu/Lark custom bot as an interactive card with a blue header: the period and the trend
 * as text, then one lark_md block per section, cut by whole lines to stay under Feishu's 20 KB, signed on every
 * attempt as alert cards are (or posted as the Feishu app's bot, as alert cards are). A card image must first be uploaded through the app API (an {@code image_key}),
 * which a bot webhook cannot do, so reports carry the trend as a text sparkline here.
 */
public final class FeishuReportTarget extends ChatReportTarget<JsonObject> {
    /** A target that sends with {@code sending}. */
    public FeishuReportTarget(String name, FeishuConfig config, ChatSending sending) {
        this(name, new FeishuPost(config, sending.client(), sending.clock()), config, sending);
    }

    private FeishuReportTarget(String name, FeishuPost post, FeishuConfig config, ChatSending sending) {
        super(name, new ChatDelivery(name, post.target(), post.secrets(), config.settings(), sending),
                "Feishu's " + FeishuCard.MAX_BODY_BYTES + "-byte message limit", false,
                FeishuReportTarget::build, post::request, post::judge);
    }

    /** The card as sent before signing, within the body limit less room for the signature fields. */
    static Optional<JsonObject> build(Report report) {
        Report text = report.withoutChart();
        return text.fit(FeishuReportTarget::card,
                c -> c.toBuffer().length() <= FeishuCard.MAX_BODY_BYTES - FeishuCard.SIGNATURE_BYTES);
    }

    private static JsonObject card(Report r) {
        StringBuilder head = new StringBuilder(md(r.period()));
        if (!r.trend().isEmpty()) {
            head.append('\n').append(md(r.trend()));
        }
        JsonArray elements = new JsonArray().add(div(head.toString()));
        for (Report.Section s : r.sections()) {
            StringBuilder text = new StringBuilder("**").append(md(s.heading())).append("**");
            for (String line : s.shown()) {
                text.append('\n').append(md(line));
            }
            elements.add(div(text.toString()));
        }
        return new JsonObject()
                .put("msg_type", "interactive")
                .put("card", new JsonObject()
                        .put("header", new JsonObject()
                                .put("title", new JsonObject().put("tag", "plain_text")
                                        .put("content", FeishuCard.TITLE.line(r.title())))
                                .put("template", "blue"))
                        .put("elements", elements));
    }

    private static JsonObject div(String content) {
        return new JsonObject().put("tag", "div")
                .put("text", new JsonObject().put("tag", "lark_md").put("content", content));
    }

    // Report lines name nodes and rules, which tenants name, so they are escaped like alert slot values.
    private static String md(String text) {
        return Markup.LARK_MD.escape(text);
    }
}
