package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.delivery.Delivery;
import io.gpuwatch.gateway.group.Flush;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * A delivery that sends a group only when it brings its receiver news no gateway of the cluster has sent yet:
 * one of its alerts must win its {@link SendClaims send claim}. The whole group then goes on, as it would on a
 * single gateway; a group whose every change was sent already, by a peer before a failover, is dropped.
 * Alerts of nodes another gateway owns are never claimed here, and a repeat of a group holding one of this
 * gateway's alerts is sent as it comes. The resolve of an alert without a node that a peer still holds firing
 * ({@link SharedHolders}) is kept back until no live gateway holds it.
 */
final class ClaimedDelivery implements Delivery {
    private static final Logger LOG = Logger.getLogger(ClaimedDelivery.class.getName());

    private final SendClaims claims;
    private final Delivery inner;
    private final Predicate<Notification> speaksFor;
    private final SharedHolders holders;
    private final Supplier<Set<String>> live;
    /** Resolves kept back, by receiver and fingerprint, with the group they came in; on the gateway's context. */
    private final Map<String, Kept> kept = new LinkedHashMap<>();

    private record Kept(Receiver receiver, Flush flush) {
    }

    /**
     * {@code speaksFor} says which alerts this gateway may claim: those of the nodes it owns, and the rest;
     * {@code holders} and the {@code live} members say whether a peer still holds an alert without a node.
     */
    ClaimedDelivery(SendClaims claims, Delivery inner, Predicate<Notification> speaksFor, SharedHolders holders,
                    Supplier<Set<String>> live) {
        this.claims = claims;
        this.inner = inner;
        this.speaksFor = speaksFor;
        this.holders = holders;
        this.live = live;
    }

    @Override
    public Future<Void> deliver(Receiver receiver, Flush flush) {
        List<Notification> ours = flush.alerts().stream().filter(speaksFor).toList();
        if (ours.isEmpty()) {
            return Future.succeededFuture();
        }
        List<Future<Boolean>> held = new ArrayList<>();
        List<Notification> ends = new ArrayList<>();
        for (Notification n : ours) {
            if (!SharedHolders.concerns(n)) {
                continue;
            }
            if (n.status() == Notification.Status.FIRING) {
                // a new episode here: a resolve of the last one is no longer to be told
                kept.remove(receiver.name() + "/" + n.fingerprint());
            } else {
                ends.add(n);
                held.add(holders.heldElsewhere(n.fingerprint(), live.get()));
            }
        }
        if (ends.isEmpty()) {
            return claimed(receiver, flush, ours);
        }
        return Future.all(held).compose(all -> {
            Set<String> back = new HashSet<>();
            for (int i = 0; i < ends.size(); i++) {
                if (held.get(i).result()) {
                    Notification n = ends.get(i);
                    back.add(n.fingerprint());
                    kept.put(receiver.name() + "/" + n.fingerprint(),
                            new Kept(receiver, flush.with(List.of(n), Flush.Reason.RESOLVED)));
                }
            }
            if (back.isEmpty()) {
                return claimed(receiver, flush, ours);
            }
            LOG.fine(() -> "kept back the resolve of " + back + " for " + receiver.name()
                    + ": a peer gateway still holds it firing");
            List<Notification> rest = ours.stream().filter(n -> !back.contains(n.fingerprint())).toList();
            if (rest.isEmpty()) {
                return Future.succeededFuture();
            }
            return claimed(receiver, flush.with(flush.alerts().stream()
                    .filter(n -> !back.contains(n.fingerprint())).toList(), flush.reason()), rest);
        });
    }

    /**
     * Sends each resolve kept back whose alert no live gateway holds firing any more (its last holder died, or
     * resolved and told it itself, which the claim then finds); call on the gateway's context when members change.
     */
    Future<Void> recheck() {
        List<Future<Void>> sent = new ArrayList<>();
        for (Map.Entry<String, Kept> e : List.copyOf(kept.entrySet())) {
            Notification n = e.getValue().flush().alerts().get(0);
            sent.add(holders.heldElsewhere(n.fingerprint(), live.get()).compose(elsewhere -> {
                if (elsewhere || kept.get(e.getKey()) != e.getValue()) {
                    return Future.succeededFuture();
                }
                kept.remove(e.getKey());
                return claimed(e.getValue().receiver(), e.getValue().flush(), List.of(n));
            }));
        }
        return Future.all(sent).mapEmpty();
    }

    /** How many resolves are kept back now. */
    int keptBack() {
        return kept.size();
    }

    private Future<Void> claimed(Receiver receiver, Flush flush, List<Notification> ours) {
        if (flush.reason() == Flush.Reason.REPEAT) {
            return inner.deliver(receiver, flush);
        }
        if (flush.reason() == Flush.Reason.REFRESH) {
            // each gateway re-sends the alerts it speaks for; a claim would let only the first refresh through
            return inner.deliver(receiver, flush.with(ours, flush.reason()));
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
