package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.delivery.Delivery;
import io.gpuwatch.gateway.group.Flush;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * A delivery that sends a group only when it brings its receiver news no gateway of the cluster has sent yet:
 * one of its alerts must win its {@link SendClaims send claim}. The whole group then goes on, as it would on a
 * single gateway; a group whose every change was sent already, by a peer before a failover, is dropped.
 * Alerts of nodes another gateway owns are never claimed here, and a repeat of a group holding one of this
 * gateway's alerts is sent as it comes.
 */
final class ClaimedDelivery implements Delivery {
    private static final Logger LOG = Logger.getLogger(ClaimedDelivery.class.getName());

    private final SendClaims claims;
    private final Delivery inner;
    private final Predicate<Notification> speaksFor;

    /** {@code speaksFor} says which alerts this gateway may claim: those of the nodes it owns, and the rest. */
    ClaimedDelivery(SendClaims claims, Delivery inner, Predicate<Notification> speaksFor) {
        this.claims = claims;
        this.inner = inner;
        this.speaksFor = speaksFor;
    }

    @Override
    public Future<Void> deliver(Receiver receiver, Flush flush) {
        List<Notification> ours = flush.alerts().stream().filter(speaksFor).toList();
        if (ours.isEmpty()) {
            return Future.succeededFuture();
        }
        if (flush.reason() == Flush.Reason.REPEAT) {
            return inner.deliver(receiver, flush);
        }
        if (flush.reason() == Flush.Reason.REFRESH) {
            // each gateway re-sends the alerts it speaks for; a claim would let only the first refresh through
            return inner.deliver(receiver, new Flush(flush.route(), flush.receiver(), flush.groupKey(),
                    flush.groupLabels(), ours, flush.reason(), flush.at()));
        }
        List<Future<Boolean>> taken = new ArrayList<>();
        for (Notification n : ours) {
            taken.add(claims.claim(receiver.name(), n));
        }
        return Future.all(taken).compose(all -> {
            if (taken.stream().noneMatch(Future::result)) {
                LOG.fine(() -> "group " + flush.groupKey() + " for " + receiver.name()
                        + " was sent by a peer gateway already");
                return Future.succeededFuture();
            }
            return inner.deliver(receiver, flush);
        });
    }
}
