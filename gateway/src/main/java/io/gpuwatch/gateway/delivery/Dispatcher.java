package io.gpuwatch.gateway.delivery;

import io.gpuwatch.gateway.group.Aggregator;
import io.gpuwatch.gateway.group.Flush;
import io.gpuwatch.gateway.inhibit.InhibitRule;
import io.gpuwatch.gateway.inhibit.Inhibitor;
import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.GroupBy;
import io.gpuwatch.gateway.route.Route;
import io.gpuwatch.gateway.silence.Silences;
import io.gpuwatch.gateway.store.NotificationLogEntry;
import io.gpuwatch.gateway.store.ReceiverHealth;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.vertx.core.Future;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * Delivery as a pipeline of small stages, as Alertmanager's dispatch is: each change of an alert updates the
 * inhibitions, joins its groups on the routes it matches, and every group that is due — at once for a group
 * without {@code group_wait} — goes to its receiver, skipping alerts a silence or an inhibition mutes. A failed
 * delivery is counted and logged, and never stops the others. Receivers that forget what they were told
 * (Alertmanager) get every alert they were told fires again on their re-send interval ({@link Resender}).
 * Owned by the gateway's event loop.
 */
public final class Dispatcher {
    private static final Logger LOG = Logger.getLogger(Dispatcher.class.getName());

    private final RoutingConfig routing;
    private final Map<String, Receiver> receivers = new LinkedHashMap<>();
    private final Inhibitor inhibitor;
    private final Silences silences;
    private final Aggregator aggregator;
    private final InstantSource clock;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final Map<String, ReceiverHealth> health = new LinkedHashMap<>();
    /** The same two counts by receiver name, every configured receiver from the start. */
    private final Map<String, AtomicLong> sentBy = new LinkedHashMap<>();
    private final Map<String, AtomicLong> failedBy = new LinkedHashMap<>();
    private final Resender resender = new Resender();
    /** Deliveries handed on and not yet settled, so a stopping gateway can wait for them. */
    private final Set<Future<Void>> inFlight = Collections.newSetFromMap(new IdentityHashMap<>());
    private Delivery delivery = Delivery.DIRECT;
    /** The silences' change count and the time muting was last brought up to date. */
    private long silenceChanges;
    private Instant mutingSeen;

    /**
     * Routes with {@code routing}, whose every receiver name must be one of {@code receivers}.
     *
     * @throws IllegalArgumentException naming the receivers the routing sends to that are not configured
     */
    public Dispatcher(RoutingConfig routing, List<Receiver> receivers, InstantSource clock) {
        this(routing, receivers, clock, true);
    }

    private Dispatcher(RoutingConfig routing, List<Receiver> receivers, InstantSource clock, boolean checkNames) {
        this.routing = routing;
        for (Receiver r : receivers) {
            this.receivers.put(r.name(), r);
            sentBy.put(r.name(), new AtomicLong());
            failedBy.put(r.name(), new AtomicLong());
        }
        List<String> missing = new ArrayList<>(routing.receivers());
        missing.removeAll(this.receivers.keySet());
        if (checkNames && !missing.isEmpty()) {
            throw new IllegalArgumentException("the routing sends to receivers that are not configured: "
                    + String.join(", ", missing) + " (configured: " + String.join(", ", this.receivers.keySet()) + ")");
        }
        this.clock = clock;
        this.inhibitor = new Inhibitor(routing.inhibitRules());
        this.silences = new Silences(() -> UUID.randomUUID().toString());
        this.aggregator = new Aggregator(routing, this::muted);
    }

    /** Every notification to every receiver the moment it happens, each alert on its own: no routing file. */
    public static Dispatcher broadcast(List<Receiver> receivers, InstantSource clock) {
        // with no receiver at all the tree names a placeholder that is never sent to
        return new Dispatcher(broadcastRouting(receivers.stream().map(Receiver::name).toList()), receivers, clock,
                false);
    }

    /**
     * A tree sending each alert, in a group of its own, to every receiver the moment it changes, resolutions
     * included; a firing alert is repeated after 4 hours as Alertmanager would. The built-in inhibitions apply.
     * Built directly rather than read, since a file may not ask for a group interval of zero.
     */
    static RoutingConfig broadcastRouting(List<String> names) {
        List<Route> children = new ArrayList<>();
        if (names.size() > 1) {
            for (int i = 0; i < names.size(); i++) {
                children.add(route("route.routes[" + i + "]", "{}/{}[" + i + "]", names.get(i), List.of()));
            }
        }
        Route root = route("route", "{}", names.isEmpty() ? "none" : names.get(0), children);
        return new RoutingConfig(root, Map.of(), Map.of(), InhibitRule.BUILT_IN);
    }

    private static Route route(String id, String key, String receiver, List<Route> children) {
        return new Route(id, key, List.of(), receiver, GroupBy.ALL, Duration.ZERO, Duration.ZERO, Duration.ofHours(4),
                true, List.of(), List.of(), children);
    }

    private boolean muted(Notification alert, Instant now) {
        return !silences.silenced(alert.labels(), now).isEmpty()
                || !inhibitor.inhibitedBy(alert.fingerprint(), alert.labels()).isEmpty();
    }

    /** Takes one change of an alert from the ledger, and sends what is due now. */
    public void dispatch(Notification n) {
        Instant now = clock.instant();
        if (inhibitor.rules().stream().anyMatch(r -> Matcher.all(r.source(), n.labels()))) {
            // a source starting or ending may hide or reveal alerts in any group
            aggregator.mutingChanged();
        }
        inhibitor.observe(n);
        aggregator.receive(n, now);
        flush(now, false);
    }

    /**
     * Rebuilds the groups after a restart from the ledger's {@code live} alerts and the last episodes of its
     * {@code ended} ones, with what the notification {@code log} says each group's receiver was told, and sends
     * what is due now; see {@link Aggregator#resume}.
     */
    public void resume(List<Notification> live, List<Notification> ended, List<NotificationLogEntry> log) {
        Map<String, Aggregator.Told> told = new HashMap<>();
        for (NotificationLogEntry e : log) {
            // an entry from before the log kept fingerprints tells nothing of which alerts were heard
            if (e.firing() != null) {
                told.put(e.receiver() + "\n" + e.key(), new Aggregator.Told(Set.copyOf(e.firing()), e.sentAt()));
            }
        }
        Instant now = clock.instant();
        live.forEach(inhibitor::observe);
        aggregator.resume(live, ended, (receiver, key) -> told.get(receiver + "\n" + key), now);
        flush(now, false);
    }

    /** Sends the groups whose timers are due; the gateway calls it on its tick. */
    public void tick() {
        flush(clock.instant(), false);
    }

    /**
     * Sends every group that changed now, not waiting for its timers, and completes once every delivery handed
     * on so far has settled (delivered, queued in the outbox, or failed): what a stopping gateway does last.
     */
    public Future<Void> flushNow() {
        flush(clock.instant(), true);
        return Future.join(List.copyOf(inFlight)).mapEmpty();
    }

    /** Deliveries handed on and not yet settled. */
    public int unsettled() {
        return inFlight.size();
    }

    private void flush(Instant now, boolean all) {
        boolean silencesTurned = mutingSeen != null && silences.turnsBetween(mutingSeen, now);
        if (silences.changes() != silenceChanges || silencesTurned) {
            aggregator.mutingChanged();
        }
        silenceChanges = silences.changes();
        mutingSeen = now;
        for (Flush f : all ? aggregator.flushChanged(now) : aggregator.tick(now)) {
            Receiver r = receivers.get(f.receiver());
            if (r == null) {
                continue;
            }
            List<Notification> alerts = f.alerts();
            track(delivery.deliver(r, f)).onComplete(ar -> {
                ReceiverHealth before = health.getOrDefault(r.name(), ReceiverHealth.unused(r.name()));
                if (ar.succeeded()) {
                    sent.addAndGet(alerts.size());
                    sentBy.get(r.name()).addAndGet(alerts.size());
                    health.put(r.name(), before.succeeded(clock.instant()));
                } else {
                    failed.addAndGet(alerts.size());
                    failedBy.get(r.name()).addAndGet(alerts.size());
                    health.put(r.name(), before.failed(clock.instant(), ar.cause().getMessage() == null
                            ? ar.cause().toString() : ar.cause().getMessage()));
                    LOG.warning("receiver " + r.name() + " failed to deliver group " + f.groupKey() + " ("
                            + alerts.size() + " alerts, " + f.reason() + "): " + ar.cause().getMessage());
                }
            });
        }
        for (Flush f : resender.due(receivers.values(), routing.root(), aggregator::told, now)) {
            Receiver r = receivers.get(f.receiver());
            track(delivery.deliver(r, f)).onComplete(ar -> {
                resender.done(r.name());
                if (ar.failed()) {
                    LOG.warning("receiver " + r.name() + " could not be sent its " + f.alerts().size()
                            + " firing alerts again: " + ar.cause().getMessage());
                }
            });
        }
    }

    private Future<Void> track(Future<Void> delivering) {
        if (!delivering.isComplete()) {
            inFlight.add(delivering);
            delivering.onComplete(ar -> inFlight.remove(delivering));
        }
        return delivering;
    }

    /** Hands due groups to {@code d} from now on instead of sending them straight to their receivers. */
    public void deliverThrough(Delivery d) {
        this.delivery = d;
    }

    /** The silences this dispatcher applies. */
    public Silences silences() {
        return silences;
    }

    /** The groups held now. */
    public List<Aggregator.GroupView> groups() {
        return aggregator.groups();
    }

    /**
     * The fingerprints of the firing alerts that inhibit the alert {@code fingerprint} with {@code labels} now,
     * sorted; empty when nothing inhibits it. The same answer delivery acts on, for the APIs that show why an
     * alert is quiet.
     */
    public List<String> inhibitedBy(String fingerprint, Map<String, String> labels) {
        return inhibitor.inhibitedBy(fingerprint, labels);
    }

    /**
     * How handing groups to each receiver went, per receiver in the order configured: without a store these are
     * the sends themselves; through the outbox only their queuing, and the outbox knows how the sends went.
     */
    public List<ReceiverHealth> health() {
        return receivers.keySet().stream().map(n -> health.getOrDefault(n, ReceiverHealth.unused(n))).toList();
    }

    /** The routing in force. */
    public RoutingConfig routing() {
        return routing;
    }

    /** Notifications delivered, counting each alert of a group message once. */
    public long sent() {
        return sent.get();
    }

    /** Notifications a receiver failed to deliver. */
    public long failed() {
        return failed.get();
    }

    /** Notifications delivered by receiver name, as {@link #sent()} counts them. */
    public Map<String, Long> sentByReceiver() {
        return counts(sentBy);
    }

    /** Notifications failed by receiver name, as {@link #failed()} counts them. */
    public Map<String, Long> failedByReceiver() {
        return counts(failedBy);
    }

    private static Map<String, Long> counts(Map<String, AtomicLong> by) {
        Map<String, Long> out = new LinkedHashMap<>();
        by.forEach((name, n) -> out.put(name, n.get()));
        return out;
    }
}
