package io.gpuwatch.notify.receiver.chat;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.acklink.AckLink;
import io.gpuwatch.notify.retry.Outcome;
import io.vertx.core.Future;

import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * What every chat receiver does with a batch once its service has said how to shape it: render the batch into
 * one message, fail at once (not retryable) when rendering throws or even the title does not fit, else post the
 * message through the receiver's {@link ChatDelivery}. The alert counterpart of {@link ChatReportTarget}, and a
 * base class for the same reason: a service's receiver holds only what is its own.
 *
 * @param <T> the message as rendered, before each attempt turns it into a request
 */
public abstract class ChatReceiver<T> implements Receiver {
    private final String name;
    private final ChatDelivery delivery;
    private final String what;
    private final String limit;
    private final Function<List<Notification>, Optional<T>> render;
    private final Function<T, Future<ChatDelivery.Request>> request;
    private final Function<Reply, Outcome> judge;

    /**
     * A receiver named {@code name} whose {@code render} always cuts the message to fit; errors call the message
     * {@code what} ("message", "card"). {@code request} turns it into the request of each attempt, so signatures
     * stay current; {@code judge} reads the service's answer.
     */
    protected ChatReceiver(String name, ChatDelivery delivery, String what,
                           Function<List<Notification>, T> render, Function<T, ChatDelivery.Request> request,
                           Function<Reply, Outcome> judge) {
        // The limit is never named: a rendering that always fits never comes back empty.
        this(name, delivery, what, "", batch -> Optional.of(render.apply(batch)),
                t -> Future.succeededFuture(request.apply(t)), judge);
    }

    /**
     * As the receiver above, for a {@code render} that comes back empty when the title alone is over the
     * service's size limit (which the error then calls {@code limit}, e.g. "Teams' 28000-byte message limit"),
     * and requests that may need something fetched first (a Feishu app's access token).
     */
    protected ChatReceiver(String name, ChatDelivery delivery, String what, String limit,
                           Function<List<Notification>, Optional<T>> render,
                           Function<T, Future<ChatDelivery.Request>> request, Function<Reply, Outcome> judge) {
        this.name = Objects.requireNonNull(name, "name");
        this.delivery = Objects.requireNonNull(delivery, "delivery");
        this.what = Objects.requireNonNull(what, "what");
        this.limit = Objects.requireNonNull(limit, "limit");
        this.render = Objects.requireNonNull(render, "render");
        this.request = Objects.requireNonNull(request, "request");
        this.judge = Objects.requireNonNull(judge, "judge");
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final Future<Void> send(List<Notification> batch) {
        if (batch.isEmpty()) {
            return Future.succeededFuture();
        }
        Optional<T> message;
        try {
            message = render.apply(batch);
        } catch (RuntimeException e) {
            return Future.failedFuture(new DeliveryFailure(name, 0,
                    "could not render the " + what + ": " + e.getClass().getSimpleName(), false));
        }
        return delivery.deliverFitted(message, "the " + what + " title alone exceeds " + limit, request, judge);
    }

    /** The signed link acknowledging the batch's firing alerts; null without {@code ackLink} or a firing alert. */
    protected static String ackLink(AckLink ackLink, List<Notification> batch, InstantSource clock) {
        List<String> firing = firing(batch);
        return ackLink == null || firing.isEmpty() ? null : ackLink.url(firing, clock.instant());
    }

    /** The fingerprints of the batch's firing alerts, in batch order: what buttons and links acknowledge. */
    protected static List<String> firing(List<Notification> batch) {
        return batch.stream().filter(n -> n.status() == Notification.Status.FIRING).map(Notification::fingerprint)
                .toList();
    }
}
