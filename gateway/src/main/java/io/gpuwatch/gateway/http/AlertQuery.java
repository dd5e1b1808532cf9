package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.match.MatcherException;
import io.gpuwatch.gateway.match.MatcherParser;
import io.gpuwatch.rules.eval.AlertState;
import io.vertx.ext.web.RoutingContext;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which alerts a request asks for: {@code filter} label matchers in Alertmanager's syntax (repeatable; an alert
 * must match all) and {@code state}s (repeatable; an alert in any of them is listed). Without a state only firing
 * alerts are listed, as before states could be asked for.
 */
record AlertQuery(List<Matcher> matchers, Set<Shown> states) {
    /** The states an alert can be asked for in. */
    enum Shown {
        FIRING, PENDING, SILENCED, INHIBITED, ACKNOWLEDGED;

        String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    AlertQuery {
        matchers = List.copyOf(matchers);
        states = states.isEmpty() ? EnumSet.noneOf(Shown.class) : EnumSet.copyOf(states);
    }

    /** The query of {@code ctx}, or null after answering 400 naming the bad parameter. */
    static AlertQuery of(RoutingContext ctx) {
        List<Matcher> matchers = new ArrayList<>();
        List<String> filters = ctx.queryParam("filter");
        for (int i = 0; i < filters.size(); i++) {
            try {
                matchers.addAll(MatcherParser.parseList(filters.get(i)));
            } catch (MatcherException e) {
                Replies.badRequest(ctx, "filter", (filters.size() > 1 ? "#" + (i + 1) + " " : "") + "`"
                        + filters.get(i) + "` at character " + (e.offset() + 1) + ": " + e.getMessage()
                        + " (a matcher such as node=\"gpu-7\", severity=~\"page|ticket\" or rule!=\"idle\")");
                return null;
            }
        }
        Set<Shown> states = EnumSet.noneOf(Shown.class);
        for (String given : ctx.queryParam("state")) {
            Shown s = Arrays.stream(Shown.values()).filter(v -> v.key().equals(given)).findFirst().orElse(null);
            if (s == null) {
                Replies.badRequest(ctx, "state", "unknown state `" + given + "`; expected one of "
                        + Arrays.stream(Shown.values()).map(Shown::key).collect(Collectors.joining(", ")));
                return null;
            }
            states.add(s);
        }
        return new AlertQuery(matchers, states);
    }

    /** True when pending alerts may be listed: they are looked at only when a state is asked for. */
    boolean looksAtPending() {
        return !states.isEmpty();
    }

    /** Whether {@code v} is one of the alerts asked for. */
    boolean test(AlertView v) {
        if (!Matcher.all(matchers, v.alert().labels())) {
            return false;
        }
        if (states.isEmpty()) {
            return v.alert().state() == AlertState.FIRING;
        }
        return states.contains(Shown.FIRING) && v.alert().state() == AlertState.FIRING
                || states.contains(Shown.PENDING) && v.alert().state() == AlertState.PENDING
                || states.contains(Shown.SILENCED) && !v.silencedBy().isEmpty()
                || states.contains(Shown.INHIBITED) && !v.inhibitedBy().isEmpty()
                || states.contains(Shown.ACKNOWLEDGED) && v.acked() != null;
    }
}
