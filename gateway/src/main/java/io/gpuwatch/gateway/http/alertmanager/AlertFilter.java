package io.gpuwatch.gateway.http.alertmanager;

import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.match.MatcherException;
import io.gpuwatch.gateway.match.MatcherParser;
import io.vertx.ext.web.RoutingContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What a {@code GET /api/v2/alerts} or {@code /alerts/groups} asks for, with Alertmanager's parameters: each
 * {@code filter} a matcher the alert's labels must satisfy; {@code active}, {@code silenced}, {@code inhibited}
 * and {@code unprocessed} (each true unless given false) whether alerts in that state are shown; {@code receiver}
 * a regular expression, anchored at both ends, one of the alert's receivers (a group's receiver) must match.
 */
record AlertFilter(List<Matcher> matchers, boolean active, boolean silenced, boolean inhibited, boolean unprocessed,
                   Pattern receiver) {
    AlertFilter {
        matchers = List.copyOf(matchers);
    }

    /** The filter of {@code ctx}'s query, or null after answering 400 naming the bad parameter. */
    static AlertFilter of(RoutingContext ctx) {
        List<Matcher> matchers = new ArrayList<>();
        List<String> filters = ctx.queryParam("filter");
        for (int i = 0; i < filters.size(); i++) {
            String name = filters.size() == 1 ? "filter" : "filter[" + i + "]";
            try {
                List<Matcher> parsed = MatcherParser.parseList(filters.get(i));
                if (parsed.isEmpty()) {
                    Answer.badRequest(ctx, name, "expected a matcher such as alertname=\"gpu-hot\", got nothing");
                    return null;
                }
                matchers.addAll(parsed);
            } catch (MatcherException e) {
                Answer.badRequest(ctx, name, "at character " + (e.offset() + 1) + " of " + filters.get(i) + ": "
                        + e.getMessage());
                return null;
            }
        }
        Boolean[] states = new Boolean[4];
        String[] names = {"active", "silenced", "inhibited", "unprocessed"};
        for (int i = 0; i < names.length; i++) {
            states[i] = flag(ctx, names[i]);
            if (states[i] == null) {
                return null;
            }
        }
        List<String> receivers = ctx.queryParam("receiver");
        if (receivers.size() > 1) {
            Answer.badRequest(ctx, "receiver", "give it once, not " + receivers.size() + " times");
            return null;
        }
        Pattern receiver = null;
        if (!receivers.isEmpty() && !receivers.get(0).isEmpty()) {
            try {
                receiver = Pattern.compile("(?:" + receivers.get(0) + ")", Pattern.DOTALL);
            } catch (PatternSyntaxException e) {
                Answer.badRequest(ctx, "receiver", "not a regular expression: " + e.getDescription());
                return null;
            }
        }
        return new AlertFilter(matchers, states[0], states[1], states[2], states[3], receiver);
    }

    /** A true/false parameter as Go reads one (true, t, 1, false, f, 0 in any case); true when absent. */
    private static Boolean flag(RoutingContext ctx, String name) {
        List<String> given = ctx.queryParam(name);
        if (given.isEmpty()) {
            return true;
        }
        if (given.size() > 1) {
            Answer.badRequest(ctx, name, "give it once, not " + given.size() + " times");
            return null;
        }
        switch (given.get(0).toLowerCase(Locale.ROOT)) {
            case "true", "t", "1" -> {
                return true;
            }
            case "false", "f", "0" -> {
                return false;
            }
            default -> {
                Answer.badRequest(ctx, name, "expected true or false, got " + given.get(0));
                return null;
            }
        }
    }

    /** Whether an alert in the state {@code view} tells of, with its labels, is shown. */
    boolean shows(AlertView view) {
        if (!active && view.silencedBy().isEmpty() && view.inhibitedBy().isEmpty()) {
            return false;
        }
        if (!silenced && !view.silencedBy().isEmpty() || !inhibited && !view.inhibitedBy().isEmpty()) {
            return false;
        }
        return Matcher.all(matchers, view.alert().labels());
    }

    /** Whether {@code name} passes the receiver filter; any name does without one. */
    boolean receiverMatches(String name) {
        return receiver == null || receiver.matcher(name).matches();
    }
}
