package io.gpuwatch.notify.receiver.teams;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.gpuwatch.notify.receiver.chat.Reply;
import io.gpuwatch.notify.render.Markup;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Posts each batch as one Adaptive Card to a Teams Workflows webhook, paced per workflow. Teams answers
 * 202 Accepted once the run is queued (a card the flow cannot post shows up only in the workflow's run history,
 * so the card is kept to the schema Teams documents); 429 waits for {@code Retry-After}, 5xx and timeouts are
 * retried, any other 4xx fails at once.
 */
public final class TeamsReceiver implements Receiver {
    private final String name;
    private final TeamsConfig config;
    private final ChatDelivery delivery;
    private final OnCall onCall;

    /** A receiver whose firing cards mention whoever {@code onCall} names (Teams UPNs or object ids). */
    public TeamsReceiver(String name, TeamsConfig config, ChatSending sending, OnCall onCall) {
        this.onCall = Objects.requireNonNull(onCall, "onCall");
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
        Optional<Buffer> body;
        try {
            boolean firing = batch.stream().anyMatch(n -> n.status() == Notification.Status.FIRING);
            body = TeamsCard.build(config.settings().layout().render(batch, Markup.COMMONMARK), firing,
                    onCall.namedFor(batch));
        } catch (RuntimeException e) {
            return Future.failedFuture(new DeliveryFailure(name, 0,
                    "could not render the card: " + e.getClass().getSimpleName(), false));
        }
        if (body.isEmpty()) {
            return Future.failedFuture(new DeliveryFailure(name, 0, "the card title alone exceeds Teams' "
                    + TeamsCard.MAX_BODY_BYTES + "-byte message limit", false));
        }
        Buffer card = body.get();
        return delivery.deliver(() -> new ChatDelivery.Request(config.url().reveal(), card), Reply::byStatus);
    }
}
