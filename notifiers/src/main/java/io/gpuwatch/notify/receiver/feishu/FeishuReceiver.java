package io.gpuwatch.notify.receiver.feishu;

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
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Posts each batch as one interactive card to a Feishu/Lark custom bot, signed afresh on every attempt when a
 * signing secret is configured (Feishu accepts a timestamp within an hour of its clock). Feishu reports errors
 * as HTTP 200 with a non-zero {@code code}: {@code 19021} (signature or timestamp), {@code 19022} (IP not
 * allowed), {@code 19024} (keyword missing) and {@code 9499} (bad request) fail at once; {@code 11232}
 * (frequency limit) waits a minute; gateway throttling (429 or 400 with {@code 99991400}) waits for
 * {@code x-ogw-ratelimit-reset}; 5xx and timeouts are retried.
 */
public final class FeishuReceiver implements Receiver {
    static final Duration FREQUENCY_LIMIT_WAIT = Duration.ofMinutes(1);

    private final String name;
    private final FeishuConfig config;
    private final ChatDelivery delivery;
    private final OnCall onCall;
    private final AckLink ackLink;
    private final InstantSource clock;
    private final FeishuPost post;
    private final boolean buttons;

    /**
     * A receiver whose firing messages mention whoever {@code onCall} names and, with an {@code ackLink} (or
     * null), carry a signed link that acknowledges their firing alerts (a custom bot gives no callback for a
     * button). With {@code buttons}, a receiver posting as a Feishu app ({@link FeishuConfig#app()}) puts
     * Acknowledge, Resolve and Silence 1h buttons on its firing cards, whose clicks the app posts to the gateway
     * (a custom bot's card cannot carry them, so they are left out there).
     */
    public FeishuReceiver(String name, FeishuConfig config, ChatSending sending, OnCall onCall, AckLink ackLink,
                          boolean buttons) {
        this.onCall = Objects.requireNonNull(onCall, "onCall");
        this.buttons = buttons && config.app() != null;
        this.post = new FeishuPost(config, sending.client(), sending.clock());
        this.ackLink = ackLink;
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.clock = sending.clock();
        this.delivery = new ChatDelivery(name, post.target(), post.secrets(), config.settings(), sending);
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
        Optional<JsonObject> card;
        try {
            boolean firing = batch.stream().anyMatch(n -> n.status() == Notification.Status.FIRING);
            List<String> firingAlerts = batch.stream().filter(n -> n.status() == Notification.Status.FIRING)
                    .map(Notification::fingerprint).toList();
            card = FeishuCard.build(config.settings().layout().render(batch, Markup.LARK_MD), firing,
                    firing ? onCall.addresses() : List.of(), link(batch), buttons ? firingAlerts : List.of());
        } catch (RuntimeException e) {
            return Future.failedFuture(new DeliveryFailure(name, 0,
                    "could not render the card: " + e.getClass().getSimpleName(), false));
        }
        if (card.isEmpty()) {
            return Future.failedFuture(new DeliveryFailure(name, 0, "the card title alone exceeds Feishu's "
                    + FeishuCard.MAX_BODY_BYTES + "-byte message limit", false));
        }
        JsonObject message = card.get();
        return delivery.deliverAsync(() -> post.request(message), post::judge);
    }

    /** The message with a signature for this moment when a signing secret is set; reports sign the same way. */
    static JsonObject signed(FeishuConfig config, InstantSource clock, JsonObject message) {
        if (config.signingSecret() == null) {
            return message;
        }
        long ts = clock.instant().getEpochSecond();
        return message.copy()
                .put("timestamp", String.valueOf(ts))
                .put("sign", FeishuSignature.sign(ts, config.signingSecret().reveal()));
    }

    static Outcome judge(Reply reply) {
        JsonObject json = reply.json();
        long code = json == null ? 0 : json.getLong("code", json.getLong("StatusCode", 0L));
        String msg = json == null ? "" : json.getString("msg", json.getString("StatusMessage", ""));
        if (reply.status() == 429 || code == 99991400) {
            String error = reply.error("code " + code + " " + msg + " (gateway rate limit)");
            return throttleWait(reply).map(wait -> Outcome.retryAfter(error, wait))
                    .orElseGet(() -> Outcome.retry(error));
        }
        if (!reply.ok()) {
            return reply.byStatus();
        }
        if (code == 0) {
            return Outcome.delivered();
        }
        String error = reply.error("code " + code + " " + msg + hint(code));
        return code == 11232 ? Outcome.retryAfter(error, FREQUENCY_LIMIT_WAIT) : Outcome.reject(error);
    }

    private static Optional<Duration> throttleWait(Reply reply) {
        String reset = reply.header("x-ogw-ratelimit-reset");
        if (reset != null && reset.strip().matches("\\d{1,6}")) {
            return Optional.of(Duration.ofSeconds(Long.parseLong(reset.strip())));
        }
        return reply.retryAfter();
    }

    private static String hint(long code) {
        return switch ((int) code) {
            case 19021 -> " (signature or timestamp rejected: check the signing secret and this host's clock)";
            case 19022 -> " (this host's IP is not on the bot's allow-list)";
            case 19024 -> " (the message lacks the bot's required keyword: add it to the templates)";
            case 9499 -> " (the bot refused the request body)";
            case 11232 -> " (frequency limit)";
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
