package io.gpuwatch.notify.receiver.wecom;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.gpuwatch.notify.receiver.chat.Reply;
import io.gpuwatch.notify.retry.Outcome;
import io.gpuwatch.notify.acklink.AckLink;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.render.Markup;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;

/**
 * Posts each batch as one markdown message to a WeCom group robot, paced per robot. WeCom reports errors as
 * HTTP 200 with a non-zero {@code errcode}: {@code 45009} (frequency exceeded) waits a minute, holding the queue;
 * {@code -1} (system busy) is retried; {@code 40058} (content too long) and {@code 93000} (invalid webhook key)
 * fail at once, as does any other code; 5xx, 429 and timeouts are retried.
 */
public final class WeComReceiver implements Receiver {
    static final Duration FREQUENCY_LIMIT_WAIT = Duration.ofSeconds(60);

    private final String name;
    private final WeComConfig config;
    private final ChatDelivery delivery;
    private final InstantSource clock;
    private final OnCall onCall;
    private final AckLink ackLink;

    /**
     * A receiver whose firing messages mention whoever {@code onCall} names and, with an {@code ackLink} (or
     * null), carry a signed link that acknowledges their firing alerts (this bot gives no callback for a button).
     */
    public WeComReceiver(String name, WeComConfig config, ChatSending sending, OnCall onCall, AckLink ackLink) {
        this.onCall = Objects.requireNonNull(onCall, "onCall");
        this.ackLink = ackLink;
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.clock = sending.clock();
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
            body = WeComMessage.build(config.settings().layout().render(batch, Markup.LOOKALIKE),
                    onCall.addressesFor(batch), link(batch)).toBuffer();
        } catch (RuntimeException e) {
            return Future.failedFuture(new DeliveryFailure(name, 0,
                    "could not render the message: " + e.getClass().getSimpleName(), false));
        }
        return delivery.deliver(() -> new ChatDelivery.Request(config.url().reveal(), body), WeComReceiver::judge);
    }

    static Outcome judge(Reply reply) {
        if (!reply.ok()) {
            return reply.byStatus();
        }
        JsonObject json = reply.json();
        long code = json == null ? 0 : json.getLong("errcode", 0L);
        if (code == 0) {
            return Outcome.delivered();
        }
        String error = reply.error("errcode " + code + " " + json.getString("errmsg", "") + hint(code));
        if (code == 45009) {
            return Outcome.retryAfter(error, FREQUENCY_LIMIT_WAIT);
        }
        return code == -1 ? Outcome.retry(error) : Outcome.reject(error);
    }

    private static String hint(long code) {
        return switch ((int) code) {
            case 45009 -> " (frequency limit: the robot takes 20 messages a minute)";
            case 40058 -> " (markdown content over 4096 bytes)";
            case 93000 -> " (invalid webhook key)";
            case -1 -> " (system busy)";
            default -> "";
        };
    }

    /** The signed link acknowledging the batch's firing alerts, or null without one or without a firing alert. */
    private String link(List<Notification> batch) {
        List<String> firing = batch.stream().filter(n -> n.status() == Notification.Status.FIRING)
                .map(Notification::fingerprint).toList();
        return ackLink == null || firing.isEmpty() ? null : ackLink.url(firing, clock.instant());
    }
}
