package io.gpuwatch.notify.receiver.slack;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatReceiver;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.gpuwatch.notify.receiver.chat.Reply;
import io.gpuwatch.notify.render.Markup;
import io.vertx.core.buffer.Buffer;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Posts each batch as one Block Kit message to a Slack incoming webhook, paced per webhook. Slack answers
 * {@code ok}, or an error code as plain text: {@code invalid_payload}, {@code no_text} (400),
 * {@code action_prohibited} (403), {@code channel_not_found}/{@code no_service} (404) and
 * {@code channel_is_archived} (410) fail at once with the code; 429 waits for {@code Retry-After}, 5xx and
 * timeouts are retried.
 */
public final class SlackReceiver extends ChatReceiver<Buffer> {
    /**
     * A receiver whose firing messages mention whoever {@code onCall} names and, with {@code buttons}, carry
     * Acknowledge, Resolve and Silence 1h buttons, whose clicks Slack posts to the gateway signed with the app's
     * signing secret.
     */
    public SlackReceiver(String name, SlackConfig config, ChatSending sending, OnCall onCall, boolean buttons) {
        // Webhooks answer 200 "ok"; every error is a non-2xx status with a text code, which byStatus quotes.
        super(name, new ChatDelivery(name, config.url().reveal(), List.of(), config.settings(), sending), "message",
                render(config, Objects.requireNonNull(onCall, "onCall"), buttons),
                body -> new ChatDelivery.Request(config.url().reveal(), body), Reply::byStatus);
    }

    private static Function<List<Notification>, Buffer> render(SlackConfig config, OnCall onCall, boolean buttons) {
        return batch -> SlackMessage.build(config.settings().layout().render(batch, Markup.SLACK_MRKDWN),
                onCall.addressesFor(batch), buttons ? firing(batch) : List.of()).toBuffer();
    }
}
