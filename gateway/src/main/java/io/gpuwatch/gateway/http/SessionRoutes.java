package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.Optional;

/**
 * The console's login: {@code POST /api/v1/session} trades an API token for a session cookie ({@code HttpOnly},
 * {@code SameSite=Strict}, {@code Secure} over TLS), {@code GET} says who the caller is, with which role and the
 * CSRF token its changes must carry, and {@code DELETE} logs out. Handlers run on the gateway's event loop.
 */
final class SessionRoutes {
    private final Sessions sessions;

    SessionRoutes(Sessions sessions) {
        this.sessions = sessions;
    }

    void mount(Router router, AccessGuard guard) {
        router.post("/api/v1/session").handler(guard.open(true)).handler(Replies.body()).handler(this::login);
        router.get("/api/v1/session").handler(guard.require(Role.VIEWER, false)).handler(this::whoAmI);
        router.delete("/api/v1/session").handler(guard.require(Role.VIEWER, false)).handler(this::logout);
    }

    /** 200 with the caller and a cookie for a token the gateway knows; 401 for one it does not; 400 without one. */
    private void login(RoutingContext ctx) {
        JsonObject body = Replies.jsonBody(ctx);
        if (body == null) {
            return;
        }
        if (!(body.getValue("token") instanceof String token) || token.isBlank()) {
            Replies.badRequest(ctx, "token", "an API token, as text, is required (gpuwatch token new --role ...)");
            return;
        }
        Optional<Sessions.Found> found = sessions.login(token.strip());
        if (found.isEmpty()) {
            ctx.response().putHeader("WWW-Authenticate", AccessGuard.CHALLENGE);
            Replies.json(ctx, 401, new JsonObject().put("error", "the API token is not one this gateway knows"));
            return;
        }
        Sessions.Session s = found.get().session();
        ctx.response().addCookie(Cookie.cookie(Sessions.COOKIE, s.id()).setPath("/").setHttpOnly(true)
                .setSameSite(CookieSameSite.STRICT).setSecure(ctx.request().isSSL()));
        Replies.json(ctx, 200, who(s.name(), found.get().role(), s.csrf(), true));
    }

    private void whoAmI(RoutingContext ctx) {
        Caller c = AccessGuard.caller(ctx);
        Replies.json(ctx, 200, who(c.name(), c.role(), c.session() == null ? null : c.session().csrf(),
                c.session() != null));
    }

    /** Ends the caller's session and clears its cookie; a bearer token or an open API has none to end. */
    private void logout(RoutingContext ctx) {
        Caller c = AccessGuard.caller(ctx);
        if (c.session() == null) {
            Replies.json(ctx, 409, new JsonObject().put("error", "this request came with no console session"));
            return;
        }
        sessions.end(c.session().id());
        ctx.response().addCookie(Cookie.cookie(Sessions.COOKIE, "").setPath("/").setHttpOnly(true)
                .setSameSite(CookieSameSite.STRICT).setSecure(ctx.request().isSSL()).setMaxAge(0));
        Replies.json(ctx, 200, new JsonObject().put("loggedOut", c.name()));
    }

    private static JsonObject who(String name, Role role, String csrf, boolean session) {
        return new JsonObject().put("name", name).put("role", role.key()).put("csrf", csrf)
                .put("session", session)
                .put("may", new JsonObject().put("read", true).put("change", role.covers(Role.OPERATOR))
                        .put("admin", role.covers(Role.ADMIN)));
    }
}
