package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.match.MatcherException;
import io.gpuwatch.gateway.match.MatcherParser;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.silence.Silences;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Silences: listed, created or changed, and expired. Handlers run on the gateway's event loop, which owns the
 * silences; with a store, a change and its audit entry are committed together before it is answered.
 */
final class SilenceRoutes {
    private final ApiHost gateway;
    private final SilenceEdits edits;

    SilenceRoutes(ApiHost gateway, SilenceEdits edits) {
        this.gateway = gateway;
        this.edits = edits;
    }

    void mount(Router router, AccessGuard guard) {
        router.get("/api/v1/silences").handler(guard.require(Role.VIEWER, false)).handler(this::silences);
        router.post("/api/v1/silences").handler(guard.require(Role.OPERATOR, true)).handler(Replies.body())
                .handler(this::createSilence);
        router.post("/api/v1/silences/preview").handler(guard.require(Role.OPERATOR, true)).handler(Replies.body())
                .handler(this::preview);
        router.delete("/api/v1/silences/:id").handler(guard.require(Role.OPERATOR, false))
                .handler(this::expireSilence);
    }

    /**
     * The firing alerts a silence with the body's {@code matchers} would mute now, a page of them, without making
     * it: nothing changes, so nothing is audited. The other fields of a silence may be sent and are not read.
     * 400 naming the bad matcher, or when no matcher requires a value (such a silence would be refused).
     */
    private void preview(RoutingContext ctx) {
        JsonObject body = Replies.jsonBody(ctx);
        if (body == null) {
            return;
        }
        List<Matcher> matchers = matchers(ctx, body);
        if (matchers == null) {
            return;
        }
        Optional<String> problem = Silences.matcherProblem(matchers);
        if (problem.isPresent()) {
            Replies.badRequest(ctx, "matchers", problem.get());
            return;
        }
        Page page = Page.of(ctx);
        if (page == null) {
            return;
        }
        Instant now = gateway.clock().instant();
        List<AlertView> muted = gateway.ledger().live().stream().filter(a -> Matcher.all(matchers, a.labels()))
                .map(a -> AlertView.of(gateway, a, now)).toList();
        JsonArray out = new JsonArray();
        page.of(muted).forEach(v -> out.add(v.json()));
        Replies.json(ctx, 200, new JsonObject().put("alerts", out).put("total", muted.size()));
    }

    private void silences(RoutingContext ctx) {
        Page page = Page.of(ctx);
        if (page == null) {
            return;
        }
        Instant now = gateway.clock().instant();
        JsonArray out = new JsonArray();
        List<Silence> all = gateway.dispatcher().silences().list();
        for (Silence s : page.of(all)) {
            out.add(silence(s, now));
        }
        Replies.json(ctx, 200, new JsonObject().put("silences", out).put("total", all.size()));
    }

    private static JsonObject silence(Silence s, Instant now) {
        JsonArray matchers = new JsonArray();
        s.matchers().forEach(m -> matchers.add(m.toString()));
        return new JsonObject().put("id", s.id()).put("matchers", matchers).put("startsAt", s.startsAt().toString())
                .put("endsAt", s.endsAt().toString()).put("createdBy", s.createdBy()).put("comment", s.comment())
                .put("updatedAt", s.updatedAt().toString())
                .put("state", s.state(now).name().toLowerCase(Locale.ROOT));
    }

    /** The matchers of {@code body}'s {@code matchers} list, or null after answering 400 naming the bad one. */
    static List<Matcher> matchers(RoutingContext ctx, JsonObject body) {
        if (!(body.getValue("matchers") instanceof JsonArray list) || list.isEmpty()) {
            Replies.badRequest(ctx, "matchers", "a non-empty list of matchers such as \"node=\\\"gpu-7\\\"\" is required");
            return null;
        }
        List<Matcher> matchers = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            if (!(list.getValue(i) instanceof String text)) {
                Replies.badRequest(ctx, "matchers[" + i + "]", "expected a matcher as text");
                return null;
            }
            try {
                matchers.add(MatcherParser.parse(text));
            } catch (MatcherException e) {
                Replies.badRequest(ctx, "matchers[" + i + "]", "at character " + (e.offset() + 1) + ": "
                        + e.getMessage());
                return null;
            }
        }
        return matchers;
    }

    /**
     * Without {@code id}, creates a silence: 201 with the new silence's id. With one, changes that silence as
     * Alertmanager does: 200 with its id, which is a new one when the change replaced an active silence; 404 for
     * an unknown id. 400 naming the first bad field; 503 when the store could not keep the change.
     */
    private void createSilence(RoutingContext ctx) {
        JsonObject body = Replies.jsonBody(ctx);
        if (body == null) {
            return;
        }
        Object id = body.getValue("id");
        if (id != null && (!(id instanceof String text) || text.isBlank())) {
            Replies.badRequest(ctx, "id", "expected the id of the silence to change, as text");
            return;
        }
        List<Matcher> matchers = matchers(ctx, body);
        if (matchers == null) {
            return;
        }
        Instant now = gateway.clock().instant();
        Instant startsAt = null;
        if (body.getValue("startsAt") != null) {
            startsAt = Replies.time(body.getValue("startsAt"));
            if (startsAt == null) {
                Replies.badRequest(ctx, "startsAt", "expected an RFC 3339 time such as 2026-01-05T09:00:00Z");
                return;
            }
        }
        Instant endsAt = body.getValue("endsAt") == null ? null : Replies.time(body.getValue("endsAt"));
        if (endsAt == null) {
            Replies.badRequest(ctx, "endsAt", "an RFC 3339 time such as 2026-01-05T17:00:00Z is required");
            return;
        }
        if (!(body.getValue("createdBy") instanceof String createdBy) || createdBy.isBlank()) {
            Replies.badRequest(ctx, "createdBy", "the person or tool making the silence, as text, is required");
            return;
        }
        Object comment = body.getValue("comment");
        if (comment != null && !(comment instanceof String)) {
            Replies.badRequest(ctx, "comment", "expected text");
            return;
        }
        Silences silences = gateway.dispatcher().silences();
        if (id == null) {
            Silences.Result r = silences.create(matchers, startsAt, endsAt, createdBy.strip(), (String) comment, now);
            if (refused(ctx, r)) {
                return;
            }
            edits.created(ctx, r.silence())
                    .onSuccess(made -> Replies.json(ctx, 201, new JsonObject().put("id", made.id())
                            .put("silence", silence(made, now))))
                    .onFailure(e -> Replies.unstored(ctx, "the silence", e));
            return;
        }
        Optional<Silence> before = silences.get((String) id);
        if (before.isEmpty()) {
            Replies.notFound(ctx, "no silence with id " + id);
            return;
        }
        Silences.Result r = silences.update((String) id, matchers, startsAt, endsAt, createdBy.strip(),
                (String) comment, now);
        if (refused(ctx, r)) {
            return;
        }
        edits.updated(ctx, before.get(), r.silence())
                .onSuccess(changed -> Replies.json(ctx, 200, new JsonObject().put("id", changed.id())
                        .put("silence", silence(changed, now))))
                .onFailure(e -> Replies.unstored(ctx, "the change of silence " + id, e));
    }

    /** Answers 400 naming the field when {@code r} was refused. */
    private static boolean refused(RoutingContext ctx, Silences.Result r) {
        if (r.ok()) {
            return false;
        }
        String message = String.join("; ", r.errors());
        Replies.badRequest(ctx, message.contains("endsAt") ? "endsAt" : message.contains("expired") ? "id"
                : "matchers", message);
        return true;
    }

    /**
     * Expires a silence now, keeping it for the record; 404 for an unknown or already expired one, 503 when the
     * store could not keep the change.
     */
    private void expireSilence(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        Instant now = gateway.clock().instant();
        Silences silences = gateway.dispatcher().silences();
        Optional<Silence> before = silences.get(id);
        if (!silences.expire(id, now)) {
            Replies.notFound(ctx, "no active or pending silence with id " + id);
            return;
        }
        edits.expired(ctx, before.orElseThrow())
                .onSuccess(expired -> Replies.json(ctx, 200, silence(expired, now)))
                .onFailure(e -> Replies.unstored(ctx, "the expiry of silence " + id, e));
    }
}
