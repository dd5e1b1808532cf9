package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.store.AuditEntry;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.Map;

/** The audit log, for admins. */
final class AuditRoutes {
    /** The newest audit entries a page holds unless asked otherwise. */
    private static final int AUDIT_PAGE = 100;

    private final ApiHost gateway;

    AuditRoutes(ApiHost gateway) {
        this.gateway = gateway;
    }

    void mount(Router router, AccessGuard guard) {
        router.get("/api/v1/audit").handler(guard.require(Role.ADMIN, false)).handler(this::audit);
    }

    /** The newest audit entries first, a page at a time; 409 without a store, which is where they are kept. */
    private void audit(RoutingContext ctx) {
        Page page = Page.of(ctx, AUDIT_PAGE, Page.MAX);
        if (page == null) {
            return;
        }
        if (gateway.store().isEmpty()) {
            Replies.json(ctx, 409, new JsonObject().put("error", "this gateway keeps its audit log in its store, "
                    + "and it runs without --data-dir, so the log went to its output only"));
            return;
        }
        gateway.store().get().run(s -> Map.entry(s.audit().count(), s.audit().newest(page.limit(), page.offset())))
                .onSuccess(found -> {
                    JsonArray out = new JsonArray();
                    for (AuditEntry e : found.getValue()) {
                        out.add(new JsonObject().put("id", e.id()).put("at", e.at().toString()).put("who", e.who())
                                .put("action", e.action()).put("target", e.target()).put("detail", e.detail())
                                .put("remote", e.remote()));
                    }
                    Replies.json(ctx, 200, new JsonObject().put("entries", out).put("total", found.getKey()));
                })
                .onFailure(e -> Replies.json(ctx, 503, new JsonObject().put("error", "the audit log could not be "
                        + "read: " + e.getMessage())));
    }
}
