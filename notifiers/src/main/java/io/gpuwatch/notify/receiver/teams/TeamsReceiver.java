package io.gpuwatch.notify.receiver.teams;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.ChatDelivery;
import io.gpuwatch.notify.receiver.chat.Reply;
import io.gpuwatch.notify.retry.Pause;
import io.gpuwatch.notify.render.Markup;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.WebClient;

import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.random.RandomGenerator;

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

    /** A receiver with its jitter source, pause and clock injected; the client is shared and closed by its owner. */
    public TeamsReceiver(String name, TeamsConfig config, WebClient client, RandomGenerator random, Pause pause,
                         InstantSource clock) {
        this(name, config, client, random, pause, clock, OnCall.NOBODY);
    }

    /** As the receiver above, its firing cards mentioning whoever {@code onCall} names (Teams UPNs or object ids). */
    public TeamsReceiver(String name, TeamsConfig config, WebClient client, RandomGenerator random, Pause pause,
                         InstantSource clock, OnCall onCall) {
        this.onCall = Objects.requireNonNull(onCall, "onCall");
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        this.delivery = new ChatDelivery(name, config.url().reveal(), List.of(), config.settings(), client, random,
                pause, clock);
    }

    /** A receiver pausing on Vert.x timers, with random jitter and the system clock. */
    public static TeamsReceiver create(Vertx vertx, WebClient client, String name, TeamsConfig config) {
        return create(vertx, client, name, config, OnCall.NOBODY);
    }

    /** As {@link #create(Vertx, WebClient, String, TeamsConfig)}, mentioning whoever {@code onCall} names. */
    public static TeamsReceiver create(Vertx vertx, WebClient client, String name, TeamsConfig config,
                                       OnCall onCall) {
        return new TeamsReceiver(name, config, client, new Random(), Pause.timers(vertx), InstantSource.system(),
                onCall);
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
