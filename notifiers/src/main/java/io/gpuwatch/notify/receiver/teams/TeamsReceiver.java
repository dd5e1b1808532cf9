package io.gpuwatch.notify.receiver.teams;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.ChatReceiver;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.gpuwatch.notify.receiver.chat.Reply;
import io.gpuwatch.notify.render.Markup;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Posts each batch as one Adaptive Card to a Teams Workflows webhook, paced per workflow. Teams answers
 * 202 Accepted once the run is queued (a card the flow cannot post shows up only in the workflow's run history,
 * so the card is kept to the schema Teams documents); 429 waits for {@code Retry-After}, 5xx and timeouts are
 * retried, any other 4xx fails at once.
 */
public final class TeamsReceiver extends ChatReceiver<Buffer> {
    /** A receiver whose firing cards mention whoever {@code onCall} names (Teams UPNs or object ids). */
    public TeamsReceiver(String name, TeamsConfig config, ChatSending sending, OnCall onCall) {
        super(name, new ChatDelivery(name, config.url().reveal(), List.of(), config.settings(), sending), "card",
                "Teams' " + TeamsCard.MAX_BODY_BYTES + "-byte message limit",
                render(config, Objects.requireNonNull(onCall, "onCall")),
                card -> Future.succeededFuture(new ChatDelivery.Request(config.url().reveal(), card)),
                Reply::byStatus);
    }

    private static Function<List<Notification>, Optional<Buffer>> render(TeamsConfig config, OnCall onCall) {
        return batch -> TeamsCard.build(config.settings().layout().render(batch, Markup.COMMONMARK),
                batch.stream().anyMatch(n -> n.status() == Notification.Status.FIRING), onCall.namedFor(batch));
    }
}
