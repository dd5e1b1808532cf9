package io.gpuwatch.gateway.group;

import io.gpuwatch.gateway.route.Route;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.notify.Notification;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Puts alerts into aggregation groups, one per route and group labels, and decides when each group notifies,
 * with Alertmanager's timers: the first notification {@code group_wait} after the group forms, then at most one
 * per {@code group_interval} when something changed, and an unchanged firing group again after
 * {@code repeat_interval}. Time passes only through {@link #tick}, so the caller drives it (a periodic timer in
 * the gateway, explicit instants in tests).
 *
 * <p>As in Alertmanager's notification log, a group notifies only when what it would send differs from what its
 * receiver was last told — an alert it has not heard fire, or the end of one it has — or when
 * {@code repeat_interval} has passed; an alert coming out of a silence or an inhibition the receiver already
 * heard fire is not announced again. One choice differs, after Alertmanager's users' complaints: an alert the
 * receiver was told fires always gets its resolution, even when it is muted by then.
 *
 * <p>A tick looks only at groups whose content changed since their last flush, or that are due a repeat; the
 * owner calls {@link #mutingChanged} when silences or inhibitions may have changed what is muted, since that
 * changes every group's content as its receiver would see it.
 */
public final class Aggregator {
    private static final Comparator<Notification> ORDER =
            Comparator.comparing(Notification::startsAt).thenComparing(Notification::fingerprint);

    private final RoutingConfig config;
    private final Muting muting;
    private final Map<GroupId, Group> groups = new LinkedHashMap<>();

    private record GroupId(String routeId, Map<String, String> labels) {
    }

    /** A group as it stands: its route, key, labels and the alerts it holds. */
    public record GroupView(Route route, String groupKey, Map<String, String> groupLabels, List<Notification> alerts,
                            Instant nextTick) {
        public GroupView {
            groupLabels = Map.copyOf(groupLabels);
            alerts = List.copyOf(alerts);
        }
    }

    private static final class Group {
        final Route route;
        final Map<String, String> labels;
        final String key;
        final Map<String, Notification> alerts = new LinkedHashMap<>();
        /** Alerts the receiver was last told fire and has not been told resolved. */
        Set<String> told = new HashSet<>();
        /** Resolutions held back until the alert they end has been told as firing, by fingerprint. */
        final Map<String, Notification> resolvedAfterTold = new LinkedHashMap<>();
        /** Whether alerts or what mutes them changed since the group was last looked at. */
        boolean changed = true;
        Instant next;
        Instant lastSent;
        /** When an unchanged group is next looked at for a repeat; null when nothing is left to repeat. */
        Instant repeatAt;

        Group(Route route, Map<String, String> labels, Instant next) {
            this.route = route;
            this.labels = labels;
            this.key = route.groupKey(labels);
            this.next = next;
        }
    }

    public Aggregator(RoutingConfig config, Muting muting) {
        this.config = config;
        this.muting = muting;
    }

    /**
     * Takes the current state of an alert. A firing alert joins (or updates) a group on each route it matches,
     * forming the group if needed; a resolved one only updates groups that hold it, since a receiver that never
     * heard of an alert has nothing to hear about its end.
     */
    public void receive(Notification alert, Instant now) {
        boolean firing = alert.status() == Notification.Status.FIRING;
        for (Route route : config.routes(alert.labels())) {
            Map<String, String> labels = route.groupBy().groupLabels(alert.labels());
            GroupId id = new GroupId(route.id(), labels);
            Group g = groups.get(id);
            if (firing) {
                if (g == null) {
                    g = new Group(route, labels, now.plus(route.groupWait()));
                    groups.put(id, g);
                }
                g.alerts.put(alert.fingerprint(), alert);
                g.changed = true;
            } else if (g != null && g.alerts.containsKey(alert.fingerprint())) {
                if (untoldPastWait(g, alert)) {
                    g.resolvedAfterTold.put(alert.fingerprint(), alert);
                } else {
                    g.alerts.put(alert.fingerprint(), alert);
                }
                g.changed = true;
            }
        }
    }

    /** What a group's receiver was last told, from the notification log: the alerts it heard fire, and when. */
    public record Told(Set<String> firing, Instant at) {
        public Told {
            firing = Set.copyOf(firing);
        }
    }

    /**
     * Rebuilds the groups after a restart. The {@code live} alerts join their groups as {@link #receive} has them;
     * each group whose receiver the notification log shows was told of it ({@code told}, by receiver and group
     * key; null where nothing is known) takes that knowledge back, so it notifies only what changed since: an
     * alert of {@code ended} the receiver heard fire and never heard end gets its resolution (a gateway killed
     * between storing the resolve and queueing its notification), one it never heard of gets nothing.
     */
    public void resume(List<Notification> live, List<Notification> ended, BiFunction<String, String, Told> told,
                       Instant now) {
        for (Notification a : live) {
            receive(a, now);
        }
        for (Notification a : ended) {
            for (Route route : config.routes(a.labels())) {
                Map<String, String> labels = route.groupBy().groupLabels(a.labels());
                Told t = told.apply(route.receiver(), route.groupKey(labels));
                if (t != null && t.firing().contains(a.fingerprint())) {
                    Group g = groups.computeIfAbsent(new GroupId(route.id(), labels),
                            id -> new Group(route, labels, now));
                    g.alerts.putIfAbsent(a.fingerprint(), a);
                    g.changed = true;
                }
            }
        }
        for (Group g : groups.values()) {
            Told t = told.apply(g.route.receiver(), g.key);
            if (t == null) {
                continue;
            }
            g.told = new HashSet<>(t.firing());
            g.told.retainAll(g.alerts.keySet());
            g.lastSent = t.at();
            g.repeatAt = t.at().plus(g.route.repeatInterval());
            // the group was sent before the restart, so its interval runs from then, not a new group_wait
            Instant due = t.at().plus(g.route.groupInterval());
            g.next = due.isAfter(now) ? due : now;
        }
    }

    /**
     * Whether a resolved alert the group holds as firing and has not told yet fired for at least the route's
     * {@code group_wait} before it resolved: a clean run would have told it. Its start and end reach the group at
     * once when a probe re-sends the backlog of a gateway's downtime, so it is told firing first, resolved after.
     */
    private static boolean untoldPastWait(Group g, Notification resolved) {
        Notification held = g.alerts.get(resolved.fingerprint());
        return held.status() == Notification.Status.FIRING && !g.told.contains(resolved.fingerprint())
                && resolved.endsAt() != null
                && Duration.between(resolved.startsAt(), resolved.endsAt()).compareTo(g.route.groupWait()) >= 0;
    }

    /**
     * Marks every group changed, for the next due tick to look at again: a silence or an inhibition began or
     * ended, so alerts may have come out of hiding (or gone into it).
     */
    public void mutingChanged() {
        for (Group g : groups.values()) {
            g.changed = true;
        }
    }

    /**
     * Runs every group whose timer is due at {@code now} and that changed or is due a repeat, and returns the
     * notifications to send, in group order.
     */
    public List<Flush> tick(Instant now) {
        List<Flush> out = new ArrayList<>();
        Iterator<Group> it = groups.values().iterator();
        while (it.hasNext()) {
            Group g = it.next();
            if (g.next.isAfter(now)) {
                continue;
            }
            Instant next = g.next.plus(g.route.groupInterval());
            // a late tick does not make the following ones come in a burst
            g.next = next.isAfter(now) ? next : now.plus(g.route.groupInterval());
            if (!g.changed && !repeatDue(g, now)) {
                continue;
            }
            Flush f = flush(g, now);
            if (f != null) {
                out.add(f);
            }
            if (g.alerts.isEmpty()) {
                it.remove();
            }
        }
        return out;
    }

    /**
     * Runs every group that changed at once, whatever its {@code group_wait} or {@code group_interval} still asks
     * for, and returns the notifications to send: what a stopping gateway must not leave untold, resolutions
     * included. A route's mute time intervals still hold theirs back.
     */
    public List<Flush> flushChanged(Instant now) {
        for (Group g : groups.values()) {
            if (g.changed && g.next.isAfter(now)) {
                g.next = now;
            }
        }
        return tick(now);
    }

    private static boolean repeatDue(Group g, Instant now) {
        return g.repeatAt != null && !now.isBefore(g.repeatAt);
    }

    private Flush flush(Group g, Instant now) {
        if (g.route.mutedAt(now)) {
            // left changed, so what it holds is looked at once the route may send again
            g.alerts.values().removeIf(a -> a.status() == Notification.Status.RESOLVED
                    && !g.told.contains(a.fingerprint()));
            return null;
        }
        g.changed = false;
        List<Notification> firing = new ArrayList<>();
        List<Notification> resolved = new ArrayList<>();
        Set<String> stillTold = new HashSet<>();
        for (Notification a : g.alerts.values()) {
            String fp = a.fingerprint();
            if (a.status() == Notification.Status.RESOLVED) {
                if (g.told.contains(fp)) {
                    resolved.add(a);
                }
            } else if (muting.muted(a, now)) {
                if (g.told.contains(fp)) {
                    stillTold.add(fp);
                }
            } else {
                firing.add(a);
            }
        }
        g.alerts.values().removeIf(a -> a.status() == Notification.Status.RESOLVED);
        if (!g.resolvedAfterTold.isEmpty()) {
            // told now (or muted, and dropped untold by the next look): the resolutions follow on the next one
            g.alerts.putAll(g.resolvedAfterTold);
            g.resolvedAfterTold.clear();
            g.changed = true;
        }
        Flush.Reason reason = reason(g, firing, resolved, now);
        if (reason == null) {
            if (repeatDue(g, now)) {
                // all it holds is muted: the next change, such as an unmute, looks again
                g.repeatAt = null;
            }
            return null;
        }
        for (Notification a : firing) {
            stillTold.add(a.fingerprint());
        }
        g.told = stillTold;
        g.lastSent = now;
        g.repeatAt = now.plus(g.route.repeatInterval());
        List<Notification> alerts = new ArrayList<>(firing);
        alerts.addAll(resolved);
        alerts.sort(ORDER);
        return new Flush(g.route, g.route.receiver(), g.key, g.labels, alerts, reason, now);
    }

    private static Flush.Reason reason(Group g, List<Notification> firing, List<Notification> resolved, Instant now) {
        if (g.lastSent == null) {
            return firing.isEmpty() ? null : Flush.Reason.FIRST;
        }
        if (firing.stream().anyMatch(a -> !g.told.contains(a.fingerprint()))) {
            return Flush.Reason.NEW_ALERTS;
        }
        if (!resolved.isEmpty()) {
            return Flush.Reason.RESOLVED;
        }
        if (!firing.isEmpty() && !now.isBefore(g.lastSent.plus(g.route.repeatInterval()))) {
            return Flush.Reason.REPEAT;
        }
        return null;
    }

    /**
     * The alerts {@code receiver} was told fire and has not been told ended, muted ones included, each once
     * however many of its groups hold it: what it should still hold.
     */
    public List<Notification> told(String receiver) {
        Map<String, Notification> out = new LinkedHashMap<>();
        for (Group g : groups.values()) {
            if (!g.route.receiver().equals(receiver)) {
                continue;
            }
            for (String fp : g.told) {
                Notification a = g.alerts.get(fp);
                if (a != null && a.status() == Notification.Status.FIRING) {
                    out.putIfAbsent(fp, a);
                }
            }
        }
        List<Notification> list = new ArrayList<>(out.values());
        list.sort(ORDER);
        return list;
    }

    /** The groups held now, in the order they formed. */
    public List<GroupView> groups() {
        List<GroupView> out = new ArrayList<>();
        for (Group g : groups.values()) {
            List<Notification> alerts = new ArrayList<>(g.alerts.values());
            alerts.sort(ORDER);
            out.add(new GroupView(g.route, g.key, g.labels, alerts, g.next));
        }
        return out;
    }
}
