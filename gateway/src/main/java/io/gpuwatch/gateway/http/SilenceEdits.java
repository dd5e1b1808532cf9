package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.silence.Silences;
import io.gpuwatch.gateway.store.AuditEntry;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;

/**
 * Keeps a silence change that either API made in the gateway's {@link Silences}: stored with its audit entry
 * under the caller's name ({@code silence.create}, {@code silence.update}, {@code silence.expire}), then shared
 * with the cluster's peers; undone in memory when the store refuses it, so what the gateway applies is what it
 * kept. Each method answers the silence as kept, or fails with the store's error. Called on the event loop.
 */
public final class SilenceEdits {
    private final ApiHost gateway;
    private final Changes changes;

    SilenceEdits(ApiHost gateway, Changes changes) {
        this.gateway = gateway;
        this.changes = changes;
    }

    /** The silences both APIs change. */
    public Silences silences() {
        return gateway.dispatcher().silences();
    }

    /** Keeps {@code made}, which {@link Silences#create} just added; forgets it if the store refuses. */
    public Future<Silence> created(RoutingContext ctx, Silence made) {
        return created(changes.audit(ctx, "silence.create", made.id(), describe(made)), made);
    }

    /**
     * As {@link #created(RoutingContext, Silence)}, audited as {@code audit} says: a silence made from a chat
     * button, whose maker is the person the chat service names rather than an API caller.
     */
    Future<Silence> created(AuditEntry audit, Silence made) {
        return changes.stored(audit, s -> s.silences().save(made))
                .onSuccess(v -> changes.share(made))
                .onFailure(e -> silences().forget(made.id()))
                .map(made);
    }

    /**
     * Keeps the change of silence {@code before} into {@code changed}, which {@link Silences#update} just made:
     * {@code changed} has a new id when it replaced an active silence, which the update expired and which is kept
     * too. Puts {@code before} back if the store refuses.
     */
    public Future<Silence> updated(RoutingContext ctx, Silence before, Silence changed) {
        String id = before.id();
        Silence old = silences().get(id).orElseThrow();
        String detail = changed.id().equals(id) ? describe(changed)
                : "replaced by " + changed.id() + ": " + describe(changed);
        return changes.stored(changes.audit(ctx, "silence.update", id, detail), s -> {
                    s.silences().save(old);
                    s.silences().save(changed);
                }).onSuccess(v -> {
                    changes.share(old);
                    changes.share(changed);
                }).onFailure(e -> {
                    silences().forget(changed.id());
                    silences().restore(before);
                })
                .map(changed);
    }

    /** Keeps the expiry of silence {@code before}, which {@link Silences#expire} just made; undoes it if refused. */
    public Future<Silence> expired(RoutingContext ctx, Silence before) {
        Silence expired = silences().get(before.id()).orElseThrow();
        return changes.stored(changes.audit(ctx, "silence.expire", before.id(), describe(expired)),
                        s -> s.silences().save(expired))
                .onSuccess(v -> changes.share(expired))
                .onFailure(e -> silences().restore(before))
                .map(expired);
    }

    static String describe(Silence s) {
        return s.matchers() + " until " + s.endsAt() + " by " + s.createdBy()
                + (s.comment() == null || s.comment().isEmpty() ? "" : ": " + s.comment());
    }
}
