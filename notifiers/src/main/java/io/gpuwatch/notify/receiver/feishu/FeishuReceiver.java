package io.gpuwatch.notify.receiver.feishu;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.acklink.AckLink;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatReceiver;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.gpuwatch.notify.receiver.chat.Reply;
import io.gpuwatch.notify.render.Markup;
import io.gpuwatch.notify.retry.Outcome;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Posts each batch as one interactive card to a Feishu/Lark custom bot, signed afresh on every attempt when a
 * signing secret is configured (Feishu accepts a timestamp within an hour of its clock). Feishu reports errors
 * as HTTP 200 with a non-zero {@code code}: {@code 19021} (signature or timestamp), {@code 19022} (IP not
 * allowed), {@code 19024} (keyword missing) and {@code 9499} (bad request) fail at once; {@code 11232}
 * (frequency limit) waits a minute; gateway throttling (429 or 400 with {@code 99991400}) waits for
 * {@code x-ogw-ratelimit-reset}; 5xx and timeouts are retried.
 */
public final class FeishuReceiver extends ChatReceiver<JsonObject> {
    static final Duration FREQUENCY_LIMIT_WAIT = Duration.ofMinutes(1);

    /**
     * A receiver whose firing messages mention whoever {@code onCall} names and, with an {@code ackLink} (or
     * null), carry a signed link that acknowledges their firing alerts (a custom bot gives no callback for a
     * button). With {@code buttons}, a receiver posting as a Feishu app ({@link FeishuConfig#app()}) puts
     * Acknowledge, Resolve and Silence 1h buttons on its firing cards, whose clicks the app posts to the gateway
     * (a custom bot's card cannot carry them, so they are left out there).
     */
    public FeishuReceiver(String name, FeishuConfig config, ChatSending sending, OnCall onCall, AckLink ackLink,
                          boolean buttons) {
        this(name, config, sending, new FeishuPost(config, sending.client(), sending.clock()),
                render(config, Objects.requireNonNull(onCall, "onCall"), ackLink, sending.clock(),
                        buttons && config.app() != null));
    }

    private FeishuReceiver(String name, FeishuConfig config, ChatSending sending, FeishuPost post,
                           Function<List<Notification>, Optional<JsonObject>> render) {
        super(name, new ChatDelivery(name, post.target(), post.secrets(), config.settings(), sending), "card",
                "Feishu's " + FeishuCard.MAX_BODY_BYTES + "-byte message limit", render, post::request, post::judge);
    }

    private static Function<List<Notification>, Optional<JsonObject>> render(FeishuConfig config, OnCall onCall,
                                                                             AckLink ackLink, InstantSource clock,
                                                                             boolean buttons) {
        return batch -> {
            List<String> firing = firing(batch);
            return FeishuCard.build(config.settings().layout().render(batch, Markup.LARK_MD), !firing.isEmpty(),
                    firing.isEmpty() ? List.of() : onCall.addresses(), ackLink(ackLink, batch, clock),
                    buttons ? firing : List.of());
        };
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
}
