package io.gpuwatch.notify.receiver.dingtalk;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.acklink.AckLink;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatReceiver;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.gpuwatch.notify.receiver.chat.Reply;
import io.gpuwatch.notify.render.Markup;
import io.gpuwatch.notify.retry.Outcome;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Posts each batch as one markdown message to a DingTalk custom robot, with {@code timestamp} and {@code sign}
 * added to the query string afresh on every attempt when a signing secret is configured. DingTalk reports
 * errors as HTTP 200 with a non-zero {@code errcode}: {@code 130101} (over 20 a minute; the robot is then
 * blocked for 10 minutes) holds every queued message for that long and is reported as retryable;
 * {@code 310000} (sign, keyword, IP or timestamp) and {@code 300001} (token or parameter) fail at once;
 * 5xx, 429 and timeouts are retried.
 */
public final class DingTalkReceiver extends ChatReceiver<Buffer> {
    static final Duration RATE_LIMIT_BLOCK = Duration.ofMinutes(10);

    /**
     * A receiver whose firing messages mention whoever {@code onCall} names and, with an {@code ackLink} (or
     * null), carry a signed link that acknowledges their firing alerts (this bot gives no callback for a button).
     */
    public DingTalkReceiver(String name, DingTalkConfig config, ChatSending sending, OnCall onCall,
                            AckLink ackLink) {
        super(name, new ChatDelivery(name, config.url().reveal(),
                        config.signingSecret() == null ? List.of() : List.of(config.signingSecret().reveal()),
                        config.settings(), sending),
                "message", "DingTalk's " + DingTalkMessage.MAX_BODY_BYTES + "-byte limit",
                render(config, Objects.requireNonNull(onCall, "onCall"), ackLink, sending.clock()),
                message -> Future.succeededFuture(
                        new ChatDelivery.Request(signedUrl(config, sending.clock()), message)),
                DingTalkReceiver::judge);
    }

    private static Function<List<Notification>, Optional<Buffer>> render(DingTalkConfig config, OnCall onCall,
                                                                         AckLink ackLink, InstantSource clock) {
        return batch -> DingTalkMessage.build(config.settings().layout().render(batch, Markup.LOOKALIKE),
                onCall.addressesFor(batch), ackLink(ackLink, batch, clock));
    }

    /** The webhook URL, signed for this moment when a signing secret is set; reports sign the same way. */
    static String signedUrl(DingTalkConfig config, InstantSource clock) {
        String url = config.url().reveal();
        if (config.signingSecret() == null) {
            return url;
        }
        long ts = clock.millis();
        return url + (url.contains("?") ? "&" : "?") + "timestamp=" + ts
                + "&sign=" + DingTalkSignature.sign(ts, config.signingSecret().reveal());
    }

    static Outcome judge(Reply reply) {
        return reply.byErrcode(DingTalkReceiver::hint, (code, error) ->
                code == 130101 ? Outcome.retryAfter(error, RATE_LIMIT_BLOCK) : Outcome.reject(error));
    }

    private static String hint(long code) {
        return switch ((int) code) {
            case 130101 -> " (rate limit: the robot takes 20 messages a minute)";
            case 310000 -> " (signature, keyword, IP allow-list or clock rejected)";
            case 300001 -> " (access token or parameter invalid)";
            default -> "";
        };
    }
}
