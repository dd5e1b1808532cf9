package io.gpuwatch.gateway.delivery;

import io.gpuwatch.gateway.group.Aggregator;
import io.gpuwatch.gateway.group.Flush;
import io.gpuwatch.gateway.inhibit.InhibitRule;
import io.gpuwatch.gateway.inhibit.Inhibitor;
import io.gpuwatch.gateway.ledger.Alert;
import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.GroupBy;
import io.gpuwatch.gateway.route.Route;
import io.gpuwatch.gateway.silence.Silences;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * Delivery as a pipeline of small stages, as Alertmanager's dispatch is: each change of an alert updates the
 * inhibitions, joins its groups on the routes it matches, and every group that is due — at once for a group
 * without {@code group_wait} — goes to its receiver, skipping alerts a silence or an inhibition mutes. A failed
 * delivery is counted and logged, and never stops the others. Owned by the gateway's event loop.
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
        flush(now);
    }

    /** Sends the groups whose timers are due; the gateway calls it on its tick. */
    public void tick() {
        flush(clock.instant());
    }

    private void flush(Instant now) {
        boolean silencesTurned = mutingSeen != null && silences.turnsBetween(mutingSeen, now);
        if (silences.changes() != silenceChanges || silencesTurned) {
            aggregator.mutingChanged();
        }
        silenceChanges = silences.changes();
        mutingSeen = now;
        for (Flush f : aggregator.tick(now)) {
            Receiver r = receivers.get(f.receiver());
            if (r == null) {
                continue;
            }
            List<Notification> alerts = f.alerts();
            delivery.deliver(r, f).onComplete(ar -> {
                if (ar.succeeded()) {
                    sent.addAndGet(alerts.size());
                } else {
                    failed.addAndGet(alerts.size());
                    LOG.warning("receiver " + r.name() + " failed to deliver group " + f.groupKey() + " ("
                            + alerts.size() + " alerts, " + f.reason() + "): " + ar.cause().getMessage());
                }
            });
        }
    }

    /** Hands due groups to {@code d} from now on instead of sending them straight to their receivers. */
    public void deliverThrough(Delivery d) {
        this.delivery = d;
    }

    /** The silences this dispatcher applies. */
    public Silences silences() {
        return silences;
    }

    /**
     * The fingerprints of the firing alerts that inhibit {@code alert} now, sorted; empty when none does. The
     * same answer delivery acts on, for the APIs that show why an alert is quiet.
     */
    public List<String> inhibitedBy(Alert alert) {
        return inhibitor.inhibitedBy(alert.fingerprint(), alert.labels());
    }

    /** The groups held now. */
    public List<Aggregator.GroupView> groups() {
        return aggregator.groups();
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
}
