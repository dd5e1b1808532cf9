package io.gpuwatch.gateway.http.alertmanager;

import io.gpuwatch.gateway.http.ApiHost;
import io.gpuwatch.gateway.http.Replies;
import io.gpuwatch.gateway.http.SilenceEdits;
import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.match.MatcherException;
import io.gpuwatch.gateway.match.MatcherParser;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.silence.Silences;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Silences in Alertmanager's shape: matchers as {@code {name, value, isRegex, isEqual}} objects and a
 * {@code status.state}. They are the gateway's one set of silences, changed through {@link SilenceEdits}, so a
 * change here is stored, audited and shared exactly as one made over {@code /api/v1}.
 */
final class SilenceApi {
    /** Alertmanager's label names: what a silence matcher may name. */
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    private final ApiHost gateway;
    private final SilenceEdits edits;

    SilenceApi(ApiHost gateway, SilenceEdits edits) {
        this.gateway = gateway;
        this.edits = edits;
    }

    /**
     * Every silence kept whose matchers satisfy each {@code filter} matcher, read as labels (a silence matcher
     * {@code node="gpu-7"} as the label {@code node} with value {@code gpu-7}), in Alertmanager's order: active
     * ones ending soonest first, then pending ones starting soonest, then expired ones, latest ended first.
     */
    void list(RoutingContext ctx) {
        List<Matcher> filter = new ArrayList<>();
        List<String> given = ctx.queryParam("filter");
        for (int i = 0; i < given.size(); i++) {
            try {
                filter.addAll(MatcherParser.parseList(given.get(i)));
            } catch (MatcherException e) {
                Answer.badRequest(ctx, given.size() == 1 ? "filter" : "filter[" + i + "]", "at character "
                        + (e.offset() + 1) + " of " + given.get(i) + ": " + e.getMessage());
                return;
            }
        }
        Instant now = gateway.clock().instant();
        JsonArray out = new JsonArray();
        edits.silences().list().stream().filter(s -> selected(s, filter))
                .sorted(order(now)).forEach(s -> out.add(json(s, now)));
        Answer.json(ctx, 200, out);
    }

    /**
     * Whether silence {@code s} is one the filter asks for. As in Alertmanager, a filter matcher with an empty
     * value also passes a silence that lacks the label (for {@code =}, {@code =~}) or has it (for {@code !=},
     * {@code !~}).
     */
    static boolean selected(Silence s, List<Matcher> filter) {
        Map<String, String> labels = new HashMap<>();
        s.matchers().forEach(m -> labels.put(m.name(), m.value()));
        for (Matcher f : filter) {
            boolean negative = f.op() == Matcher.Op.NOT_EQUAL || f.op() == Matcher.Op.NOT_REGEX;
            if (f.value().isEmpty() && labels.containsKey(f.name()) == negative) {
                continue;
            }
            if (!f.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    private static Comparator<Silence> order(Instant now) {
        Comparator<Silence> byState = Comparator.comparingInt(s -> switch (s.state(now)) {
            case ACTIVE -> 0;
            case PENDING -> 1;
            case EXPIRED -> 2;
        });
        return byState.thenComparing((a, b) -> switch (a.state(now)) {
            case ACTIVE -> a.endsAt().compareTo(b.endsAt());
            case PENDING -> a.startsAt().compareTo(b.startsAt());
            case EXPIRED -> b.endsAt().compareTo(a.endsAt());
        });
    }

    void one(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        Optional<Silence> s = edits.silences().get(id);
        if (s.isEmpty()) {
            Answer.error(ctx, 404, "no silence with id " + id);
            return;
        }
        Answer.json(ctx, 200, json(s.get(), gateway.clock().instant()));
    }

    /** A silence as Alertmanager's {@code gettableSilence}. */
    static JsonObject json(Silence s, Instant now) {
        JsonArray matchers = new JsonArray();
        for (Matcher m : s.matchers()) {
            matchers.add(new JsonObject().put("name", m.name()).put("value", m.value())
                    .put("isRegex", m.op() == Matcher.Op.REGEX || m.op() == Matcher.Op.NOT_REGEX)
                    .put("isEqual", m.op() == Matcher.Op.EQUAL || m.op() == Matcher.Op.REGEX));
        }
        return new JsonObject().put("id", s.id())
                .put("status", new JsonObject().put("state", s.state(now).name().toLowerCase(Locale.ROOT)))
                .put("updatedAt", s.updatedAt().toString())
                .put("matchers", matchers)
                .put("startsAt", s.startsAt().toString())
                .put("endsAt", s.endsAt().toString())
                .put("createdBy", s.createdBy())
                .put("comment", s.comment());
    }

    /**
     * Creates a silence, or with an {@code id} changes that one as Alertmanager does: in place while its matchers
     * and start stay (or while it is pending), else by expiring it and creating a new silence, which an expired
     * one always gets. 200 with {@code silenceID}, the new id where one was made; 404 for an unknown id; 400
     * naming the first bad field; 500 when the store could not keep it.
     */
    void post(RoutingContext ctx) {
        JsonObject body = Answer.object(ctx);
        if (body == null) {
            return;
        }
        Object id = body.getValue("id");
        if (id != null && (!(id instanceof String text) || text.isBlank())) {
            Answer.badRequest(ctx, "id", "expected the id of the silence to change, as text");
            return;
        }
        List<Matcher> matchers = matchers(ctx, body.getValue("matchers"));
        if (matchers == null) {
            return;
        }
        Instant startsAt = null;
        if (body.getValue("startsAt") != null) {
            startsAt = Replies.time(body.getValue("startsAt"));
            if (startsAt == null) {
                Answer.badRequest(ctx, "startsAt", "expected an RFC 3339 time such as 2026-01-05T09:00:00Z");
                return;
            }
        }
        Instant endsAt = body.getValue("endsAt") == null ? null : Replies.time(body.getValue("endsAt"));
        if (endsAt == null) {
            Answer.badRequest(ctx, "endsAt", "an RFC 3339 time such as 2026-01-05T17:00:00Z is required");
            return;
        }
        if (!(body.getValue("createdBy") instanceof String createdBy) || createdBy.isBlank()) {
            Answer.badRequest(ctx, "createdBy", "the person or tool making the silence, as text, is required");
            return;
        }
        Object comment = body.getValue("comment");
        if (comment != null && !(comment instanceof String)) {
            Answer.badRequest(ctx, "comment", "expected text");
            return;
        }
        Instant now = gateway.clock().instant();
        Silences silences = edits.silences();
        Optional<Silence> before = id == null ? Optional.empty() : silences.get((String) id);
        if (id != null && before.isEmpty()) {
            Answer.error(ctx, 404, "no silence with id " + id);
            return;
        }
        boolean replace = before.isPresent() && before.get().state(now) != Silence.State.EXPIRED;
        Silences.Result r = replace
                ? silences.update((String) id, matchers, startsAt, endsAt, createdBy.strip(), (String) comment, now)
                : silences.create(matchers, startsAt, endsAt, createdBy.strip(), (String) comment, now);
        if (!r.ok()) {
            String message = String.join("; ", r.errors());
            Answer.badRequest(ctx, message.contains("endsAt") ? "endsAt" : message.contains("createdBy")
                    ? "createdBy" : "matchers", message);
            return;
        }
        Future<Silence> kept = replace ? edits.updated(ctx, before.get(), r.silence())
                : edits.created(ctx, r.silence());
        kept.onSuccess(s -> Answer.json(ctx, 200, new JsonObject().put("silenceID", s.id())))
                .onFailure(e -> Answer.error(ctx, 500, "the silence could not be stored, so it was not made: "
                        + e.getMessage()));
    }

    /** The matchers of a postable silence, or null after answering 400 naming the bad one. */
    static List<Matcher> matchers(RoutingContext ctx, Object given) {
        if (!(given instanceof JsonArray list) || list.isEmpty()) {
            Answer.badRequest(ctx, "matchers", "a non-empty list of matchers such as "
                    + "{\"name\": \"node\", \"value\": \"gpu-7\", \"isRegex\": false} is required");
            return null;
        }
        List<Matcher> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String at = "matchers[" + i + "]";
            if (!(list.getValue(i) instanceof JsonObject m)) {
                Answer.badRequest(ctx, at, "expected an object with name, value and isRegex");
                return null;
            }
            if (!(m.getValue("name") instanceof String name) || !LABEL_NAME.matcher(name).matches()) {
                Answer.badRequest(ctx, at + ".name", "a label name such as node (letters, digits and _, not "
                        + "starting with a digit) is required");
                return null;
            }
            if (!(m.getValue("value") instanceof String value)) {
                Answer.badRequest(ctx, at + ".value", "the value to match, as text, is required");
                return null;
            }
            if (!(m.getValue("isRegex") instanceof Boolean regex)) {
                Answer.badRequest(ctx, at + ".isRegex", "true or false is required");
                return null;
            }
            Object isEqual = m.getValue("isEqual");
            if (isEqual != null && !(isEqual instanceof Boolean)) {
                Answer.badRequest(ctx, at + ".isEqual", "expected true or false");
                return null;
            }
            boolean equal = isEqual == null || (Boolean) isEqual;
            Matcher.Op op = regex ? (equal ? Matcher.Op.REGEX : Matcher.Op.NOT_REGEX)
                    : (equal ? Matcher.Op.EQUAL : Matcher.Op.NOT_EQUAL);
            try {
                out.add(Matcher.of(name, op, value));
            } catch (PatternSyntaxException e) {
                Answer.badRequest(ctx, at + ".value", "not a regular expression: " + e.getDescription());
                return null;
            }
        }
        return out;
    }

    /** Expires a silence now; 404 for an unknown or already expired one, 500 when the store refused. */
    void expire(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        Silences silences = edits.silences();
        Optional<Silence> before = silences.get(id);
        if (!silences.expire(id, gateway.clock().instant())) {
            Answer.error(ctx, 404, before.isEmpty() ? "no silence with id " + id
                    : "silence " + id + " has already expired");
            return;
        }
        edits.expired(ctx, before.orElseThrow())
                .onSuccess(s -> ctx.response().setStatusCode(200).end())
                .onFailure(e -> Answer.error(ctx, 500, "the expiry of silence " + id + " could not be stored, so "
                        + "it was not made: " + e.getMessage()));
    }
}
