package io.gpuwatch.notify.receiver.slack;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.gpuwatch.notify.receiver.chat.Reply;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.render.Markup;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;

import java.util.List;
import java.util.Objects;

/**
 * Posts each batch as one Block Kit message to a Slack incoming webhook, paced per webhook. Slack answers
 * {@code ok}, or an error code as plain text: {@code invalid_payload}, {@code no_text} (400),
 * {@code action_prohibited} (403), {@code channel_not_found}/{@code no_service} (404) and
 * {@code channel_is_archived} (410) fail at once with the code; 429 waits for {@code Retry-After}, 5xx and
 * timeouts are retried.
 */
public final class SlackReceiver implements Receiver {
    private final String name;
    private final SlackConfig config;
    private final ChatDelivery delivery;
    private final OnCall onCall;
    private final boolean buttons;

    /**
     * A receiver whose firing messages mention whoever {@code onCall} names and, with {@code buttons}, carry
     * Acknowledge, Resolve and Silence 1h buttons, whose clicks Slack posts to the gateway signed with the app's
     * signing secret.
     */
    public SlackReceiver(String name, SlackConfig config, ChatSending sending, OnCall onCall, boolean buttons) {
        this.onCall = Objects.requireNonNull(onCall, "onCall");
        this.buttons = buttons;
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.delivery = new ChatDelivery(name, config.url().reveal(), List.of(), config.settings(), sending);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Future<Void> send(List<Notification> batch) {
        if (batch.isEmpty()) {
            return Future.succeededFuture();
        }
        Buffer body;
        try {
            List<String> firing = buttons ? batch.stream().filter(n -> n.status() == Notification.Status.FIRING)
                    .map(Notification::fingerprint).toList() : List.of();
            body = SlackMessage.build(config.settings().layout().render(batch, Markup.SLACK_MRKDWN),
                    onCall.addressesFor(batch), firing).toBuffer();
        } catch (RuntimeException e) {
            return Future.failedFuture(new DeliveryFailure(name, 0,
                    "could not render the message: " + e.getClass().getSimpleName(), false));
        }
        // Webhooks answer 200 "ok"; every error is a non-2xx status with a text code, which byStatus quotes.
        return delivery.deliver(() -> new ChatDelivery.Request(config.url().reveal(), body), Reply::byStatus);
    }
}
