package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.ingest.TokenBucket;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.HostAndPort;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.SecurityPolicyHandler;

import java.time.InstantSource;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The access check in front of every API route (docs/api.md, Access): a foreign browser origin is refused
 * (403) unless listed, a caller without a valid bearer token or console session gets 401 with its challenge, one
 * whose role falls short 403, one over its rate 429, a change whose body is not JSON 415, and a change made with
 * a session but without its CSRF token 403. A caller that passes is put on the routing context ({@link #caller}).
 * Runs on the gateway's event loop, which owns the rate budgets and the sessions.
 */
public final class AccessGuard {
    static final String CHALLENGE = "Bearer realm=\"gpuwatch\"";
    private static final String CALLER = "gpuwatch.caller";

    private final ApiAccess access;
    private final InstantSource clock;
    private final Map<String, TokenBucket> budgets = new HashMap<>();
    private final Sessions sessions;

    AccessGuard(ApiAccess access, InstantSource clock) {
        this.access = access;
        this.clock = clock;
        this.sessions = new Sessions(access.tokens(), clock);
    }

    /** The console's logins, which this check accepts beside bearer tokens. */
    Sessions sessions() {
        return sessions;
    }

    /** The caller that {@link #require} let through. */
    static Caller caller(RoutingContext ctx) {
        return ctx.get(CALLER);
    }

    /**
     * Lets through callers whose role covers {@code needed}; {@code jsonBody}: the route reads a JSON body. A
     * security-policy handler, so it runs before the body is read: a caller that may not change anything cannot
     * make the gateway take its upload.
     */
    public SecurityPolicyHandler require(Role needed, boolean jsonBody) {
        return ctx -> {
            HttpServerRequest req = ctx.request();
            if (!originAllowed(ctx)) {
                return;
            }
            String remote = req.remoteAddress() == null ? "" : req.remoteAddress().hostAddress();
            Caller caller = authenticate(ctx, remote);
            if (caller == null) {
                return;
            }
            if (!caller.role().covers(needed)) {
                Replies.json(ctx, 403, new JsonObject().put("error", "token " + caller.name() + " has role "
                        + caller.role().key() + "; this needs " + needed.key() + " or above"));
                return;
            }
            String budget = caller.name().equals(Caller.LOCAL) ? Caller.LOCAL + "@" + remote : caller.name();
            if (!withinRate(ctx, budget, caller.name())) {
                return;
            }
            if (changes(req.method()) && !jsonOnly(ctx, jsonBody)) {
                return;
            }
            // a cookie comes with every request the browser sends here, so a change must also prove it was made by
            // a page that could read the session's answer: the gateway's own
            if (changes(req.method()) && caller.session() != null
                    && !Sessions.csrfMatches(caller.session(), req.getHeader(Sessions.CSRF_HEADER))) {
                Replies.json(ctx, 403, new JsonObject().put("error", "a change made with a console session must "
                        + "send its CSRF token in " + Sessions.CSRF_HEADER + " (GET /api/v1/session gives it)"));
                return;
            }
            ctx.put(CALLER, caller);
            ctx.next();
        };
    }

    /**
     * For a route anyone may call, such as logging in: the origin check, a rate budget per address, and a JSON body
     * for a change.
     */
    public SecurityPolicyHandler open(boolean jsonBody) {
        return ctx -> {
            HttpServerRequest req = ctx.request();
            if (!originAllowed(ctx)) {
                return;
            }
            String remote = req.remoteAddress() == null ? "" : req.remoteAddress().hostAddress();
            if (!withinRate(ctx, "open@" + remote, remote)) {
                return;
            }
            if (changes(req.method()) && !jsonOnly(ctx, jsonBody)) {
                return;
            }
            ctx.next();
        };
    }

    /** Takes one request from {@code budget}'s rate, or answers 429 naming {@code who}; false after answering. */
    private boolean withinRate(RoutingContext ctx, String budget, String who) {
        if (budgets.computeIfAbsent(budget, k -> new TokenBucket(access.ratePerSecond(), access.burst(),
                clock.millis())).take(clock.millis())) {
            return true;
        }
        ctx.response().putHeader("Retry-After", "1");
        Replies.json(ctx, 429, new JsonObject().put("error", "over " + access.ratePerSecond()
                + " requests a second for " + who + "; slow down"));
        return false;
    }

    /**
     * Whether {@code c}, let through earlier, would still be: its session still valid (not kept alive by asking),
     * or its token still in the file. For a stream that stays open after the check that let it in.
     */
    boolean stillAllowed(Caller c) {
        if (c.session() != null) {
            return sessions.peek(c.session().id()).isPresent();
        }
        return c.name().equals(Caller.LOCAL) || access.tokens().get().named(c.name()).isPresent();
    }

    /** Answers a browser's preflight: allowed for a listed origin only. */
    void preflight(RoutingContext ctx) {
        String origin = ctx.request().getHeader("Origin");
        if (origin == null || !access.corsOrigins().contains(origin)) {
            Replies.json(ctx, 403, new JsonObject().put("error", "origin " + origin + " may not call this API"
                    + " across sites; a gateway started with --cors-origin " + origin + " allows it"));
            return;
        }
        ctx.response().setStatusCode(204)
                .putHeader("Access-Control-Allow-Origin", origin)
                .putHeader("Vary", "Origin")
                .putHeader("Access-Control-Allow-Methods", "GET, POST, DELETE")
                .putHeader("Access-Control-Allow-Headers", "Authorization, Content-Type, " + Sessions.CSRF_HEADER)
                .putHeader("Access-Control-Max-Age", "600")
                .end();
    }

    /**
     * A request from a browser page carries its origin: the gateway's own (the Host it was sent to) and those
     * listed may call; any other, {@code null} included, is refused, so a page elsewhere cannot change anything.
     */
    private boolean originAllowed(RoutingContext ctx) {
        String origin = ctx.request().getHeader("Origin");
        if (origin == null) {
            return true;
        }
        if (access.corsOrigins().contains(origin)) {
            ctx.response().putHeader("Access-Control-Allow-Origin", origin).putHeader("Vary", "Origin");
            return true;
        }
        // the authority is Host in HTTP/1.1 and :authority in HTTP/2
        HostAndPort to = ctx.request().authority();
        String scheme = ctx.request().isSSL() ? "https://" : "http://";
        if (to != null && origin.equalsIgnoreCase(scheme + to.host() + (to.port() < 0 ? "" : ":" + to.port()))) {
            return true;
        }
        Replies.json(ctx, 403, new JsonObject().put("error", "origin " + origin + " may not call this API; "
                + "a gateway started with --cors-origin " + origin + " allows it"));
        return false;
    }

    /** The caller, or null after answering 401. */
    private Caller authenticate(RoutingContext ctx, String remote) {
        ApiTokens tokens = access.tokens().get();
        if (tokens.isEmpty()) {
            // an open API is for this machine only; a name other than a loopback one in Host is a page that
            // rebound its own name to this address
            HostAndPort to = ctx.request().authority();
            if (ApiAccess.loopback(remote) && to != null && loopbackHost(to.host())) {
                return new Caller(Caller.LOCAL, Role.ADMIN, remote);
            }
            unauthorized(ctx, "this gateway has no API tokens, so its API answers only on this machine, to "
                    + "http://127.0.0.1 or http://localhost");
            return null;
        }
        Optional<String> presented = bearer(ctx.request().getHeader("Authorization"));
        if (presented.isEmpty()) {
            Cookie cookie = ctx.request().getCookie(Sessions.COOKIE);
            Optional<Sessions.Found> session = sessions.find(cookie == null ? null : cookie.getValue());
            if (session.isPresent()) {
                return new Caller(session.get().session().name(), session.get().role(), remote,
                        session.get().session());
            }
            unauthorized(ctx, cookie == null ? "send an API token: Authorization: Bearer <token> (gpuwatch token "
                    + "new --role ...), or log in to the console" : "the console session is over; log in again");
            return null;
        }
        Optional<ApiTokens.Entry> entry = tokens.find(presented.get());
        if (entry.isEmpty()) {
            unauthorized(ctx, "the API token is not one this gateway knows");
            return null;
        }
        return new Caller(entry.get().name(), entry.get().role(), remote);
    }

    private static void unauthorized(RoutingContext ctx, String why) {
        ctx.response().putHeader("WWW-Authenticate", CHALLENGE);
        Replies.json(ctx, 401, new JsonObject().put("error", why));
    }

    /** The token of an {@code Authorization: Bearer} header. */
    static Optional<String> bearer(String header) {
        if (header == null || header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.empty();
        }
        String token = header.substring(7).strip();
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }

    /** True for a host naming this machine's loopback: localhost, 127.x.y.z or ::1 (bracketed or not). */
    static boolean loopbackHost(String host) {
        String name = (host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host)
                .toLowerCase(Locale.ROOT);
        // literal addresses only, so no name is ever looked up on the event loop
        return name.equals("localhost") || name.equals("::1") || name.matches("127(\\.\\d{1,3}){3}");
    }

    private static boolean changes(HttpMethod m) {
        return m == HttpMethod.POST || m == HttpMethod.PUT || m == HttpMethod.PATCH || m == HttpMethod.DELETE;
    }

    /**
     * A change carries JSON or nothing: a form or text body, which a page elsewhere can send without asking,
     * is refused with 415 before it is read. False after answering.
     */
    private static boolean jsonOnly(RoutingContext ctx, boolean jsonBody) {
        String type = ctx.request().getHeader("Content-Type");
        boolean json = type != null && type.split(";", 2)[0].strip().equalsIgnoreCase("application/json");
        String length = ctx.request().getHeader("Content-Length");
        boolean hasBody = type != null || (length != null && !length.equals("0"))
                || ctx.request().getHeader("Transfer-Encoding") != null;
        if (json || (!jsonBody && !hasBody)) {
            return true;
        }
        Replies.json(ctx, 415, new JsonObject().put("error", "send " + (jsonBody ? "" : "no body or ")
                + "a JSON body with Content-Type: application/json" + (type == null ? "" : ", not " + type)));
        return false;
    }
}
