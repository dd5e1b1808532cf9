package io.gpuwatch.gateway.route;

import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.notify.Group;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * One node of the routing tree, with everything it inherited from its parents already filled in. The root
 * matches every alert; below it the first matching child wins unless that child says {@code continue: true}.
 */
public final class Route {
    /** The receiver of a route that names an escalation policy and no receiver: its groups go nowhere. */
    public static final String NONE = "";
    private final String id;
    private final String key;
    private final List<Matcher> matchers;
    private final String receiver;
    private final GroupBy groupBy;
    private final Duration groupWait;
    private final Duration groupInterval;
    private final Duration repeatInterval;
    private final boolean continueMatching;
    private final List<TimeInterval> muteTimeIntervals;
    private final List<TimeInterval> activeTimeIntervals;
    private final List<Route> routes;
    /** The escalation policy this route's alerts are escalated by; null for none. */
    private final String escalation;

    /**
     * A route. {@code id} names its place ({@code route.routes[1]}), unique in the tree; {@code key} is
     * Alertmanager's route key ({@code {}/{severity="page"}}), which opens every group key.
     */
    public Route(String id, String key, List<Matcher> matchers, String receiver, GroupBy groupBy, Duration groupWait,
                 Duration groupInterval, Duration repeatInterval, boolean continueMatching,
                 List<TimeInterval> muteTimeIntervals, List<TimeInterval> activeTimeIntervals, List<Route> routes) {
        this(id, key, matchers, receiver, groupBy, groupWait, groupInterval, repeatInterval, continueMatching,
                muteTimeIntervals, activeTimeIntervals, routes, null);
    }

    /**
     * A route whose alerts are also escalated by the policy named {@code escalation} (null: none); a route that
     * only escalates has the receiver {@link #NONE}.
     */
    public Route(String id, String key, List<Matcher> matchers, String receiver, GroupBy groupBy, Duration groupWait,
                 Duration groupInterval, Duration repeatInterval, boolean continueMatching,
                 List<TimeInterval> muteTimeIntervals, List<TimeInterval> activeTimeIntervals, List<Route> routes,
                 String escalation) {
        this.escalation = escalation;
        this.id = Objects.requireNonNull(id, "id");
        this.key = Objects.requireNonNull(key, "key");
        this.matchers = List.copyOf(matchers);
        this.receiver = Objects.requireNonNull(receiver, "receiver");
        this.groupBy = Objects.requireNonNull(groupBy, "groupBy");
        this.groupWait = Objects.requireNonNull(groupWait, "groupWait");
        this.groupInterval = Objects.requireNonNull(groupInterval, "groupInterval");
        this.repeatInterval = Objects.requireNonNull(repeatInterval, "repeatInterval");
        this.continueMatching = continueMatching;
        this.muteTimeIntervals = List.copyOf(muteTimeIntervals);
        this.activeTimeIntervals = List.copyOf(activeTimeIntervals);
        this.routes = List.copyOf(routes);
    }

    /**
     * The routes {@code labels} end up at, in tree order: the deepest matching routes, where a route that
     * matches but none of whose children do is itself the end. Empty when this route's own matchers fail.
     */
    public List<Route> match(Map<String, String> labels) {
        if (!Matcher.all(matchers, labels)) {
            return List.of();
        }
        List<Route> all = new ArrayList<>();
        for (Route child : routes) {
            List<Route> found = child.match(labels);
            all.addAll(found);
            if (!found.isEmpty() && !child.continueMatching) {
                break;
            }
        }
        if (all.isEmpty()) {
            all.add(this);
        }
        return all;
    }

    /** Whether notifications of this route are held back at {@code t} by its mute or active time intervals. */
    public boolean mutedAt(Instant t) {
        for (TimeInterval i : muteTimeIntervals) {
            if (i.contains(t)) {
                return true;
            }
        }
        if (activeTimeIntervals.isEmpty()) {
            return false;
        }
        for (TimeInterval i : activeTimeIntervals) {
            if (i.contains(t)) {
                return false;
            }
        }
        return true;
    }

    /** The group key of the group holding {@code groupLabels}: {@code {}/{severity="page"}:{alertname="x", node="n1"}}. */
    public String groupKey(Map<String, String> groupLabels) {
        return Group.key(key, groupLabels);
    }

    static String matchersKey(List<Matcher> matchers) {
        return matchers.stream().map(Matcher::toString).collect(Collectors.joining(",", "{", "}"));
    }

    public String id() {
        return id;
    }

    public String key() {
        return key;
    }

    public List<Matcher> matchers() {
        return matchers;
    }

    public String receiver() {
        return receiver;
    }

    public GroupBy groupBy() {
        return groupBy;
    }

    public Duration groupWait() {
        return groupWait;
    }

    public Duration groupInterval() {
        return groupInterval;
    }

    public Duration repeatInterval() {
        return repeatInterval;
    }

    /** The escalation policy this route names, if any. */
    public Optional<String> escalation() {
        return Optional.ofNullable(escalation);
    }

    public boolean continueMatching() {
        return continueMatching;
    }

    public List<TimeInterval> muteTimeIntervals() {
        return muteTimeIntervals;
    }

    public List<TimeInterval> activeTimeIntervals() {
        return activeTimeIntervals;
    }

    /** The child routes, in order. */
    public List<Route> routes() {
        return routes;
    }

    /** Every route of this subtree, this one first, depth first. */
    public List<Route> flatten() {
        List<Route> out = new ArrayList<>();
        out.add(this);
        for (Route r : routes) {
            out.addAll(r.flatten());
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Route r && id.equals(r.id) && key.equals(r.key) && matchers.equals(r.matchers)
                && receiver.equals(r.receiver) && groupBy.equals(r.groupBy) && groupWait.equals(r.groupWait)
                && groupInterval.equals(r.groupInterval) && repeatInterval.equals(r.repeatInterval)
                && continueMatching == r.continueMatching && muteTimeIntervals.equals(r.muteTimeIntervals)
                && activeTimeIntervals.equals(r.activeTimeIntervals) && routes.equals(r.routes)
                && Objects.equals(escalation, r.escalation);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, matchers, receiver);
    }

    /** {@code route.routes[0] {severity="page"} -> paging}. */
    @Override
    public String toString() {
        return id + " " + matchersKey(matchers) + " -> " + receiver
                + (escalation == null ? "" : " (escalation " + escalation + ")");
    }
}
