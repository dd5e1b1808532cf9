package io.gpuwatch.notify.receiver.wecom;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.acklink.AckLink;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatReceiver;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.gpuwatch.notify.receiver.chat.Reply;
import io.gpuwatch.notify.render.Markup;
import io.gpuwatch.notify.retry.Outcome;
import io.vertx.core.buffer.Buffer;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Posts each batch as one markdown message to a WeCom group robot, paced per robot. WeCom reports errors as
 * HTTP 200 with a non-zero {@code errcode}: {@code 45009} (frequency exceeded) waits a minute, holding the queue;
 * {@code -1} (system busy) is retried; {@code 40058} (content too long) and {@code 93000} (invalid webhook key)
 * fail at once, as does any other code; 5xx, 429 and timeouts are retried.
 */
public final class WeComReceiver extends ChatReceiver<Buffer> {
    static final Duration FREQUENCY_LIMIT_WAIT = Duration.ofSeconds(60);

    /**
     * A receiver whose firing messages mention whoever {@code onCall} names and, with an {@code ackLink} (or
     * null), carry a signed link that acknowledges their firing alerts (this bot gives no callback for a button).
     */
    public WeComReceiver(String name, WeComConfig config, ChatSending sending, OnCall onCall, AckLink ackLink) {
        super(name, new ChatDelivery(name, config.url().reveal(), List.of(), config.settings(), sending), "message",
                render(config, Objects.requireNonNull(onCall, "onCall"), ackLink, sending.clock()),
                body -> new ChatDelivery.Request(config.url().reveal(), body), WeComReceiver::judge);
    }

    private static Function<List<Notification>, Buffer> render(WeComConfig config, OnCall onCall, AckLink ackLink,
                                                               InstantSource clock) {
        return batch -> WeComMessage.build(config.settings().layout().render(batch, Markup.LOOKALIKE),
                onCall.addressesFor(batch), ackLink(ackLink, batch, clock)).toBuffer();
    }

    static Outcome judge(Reply reply) {
        return reply.byErrcode(WeComReceiver::hint, (code, error) -> {
            if (code == 45009) {
                return Outcome.retryAfter(error, FREQUENCY_LIMIT_WAIT);
            }
            return code == -1 ? Outcome.retry(error) : Outcome.reject(error);
        });
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
}
