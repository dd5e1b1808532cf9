package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The console's logins (docs/api.md, Sessions): an API token traded for a random session id, kept in memory and
 * sent back by the browser in an {@code HttpOnly}, {@code SameSite=Strict} cookie, with a CSRF token every change
 * must repeat in a header. A session speaks for its token as long as the token file still holds it: each use
 * looks the token up again, so a revoked token ends its sessions and a changed role applies at once. Owned by
 * the gateway's event loop.
 */
final class Sessions {
    /** The cookie that carries the session id. */
    static final String COOKIE = "gpuwatch_session";
    /** The header a change made with a session must carry its CSRF token in. */
    static final String CSRF_HEADER = "X-CSRF-Token";
    /** A session unused this long is over. */
    static final long IDLE_MS = 8 * 3600_000L;
    /** More sessions than this and the least recently used goes: a loop of logins cannot fill the memory. */
    static final int MAX = 10_000;

    /** A login: who it speaks for (the token's name and hash) and the CSRF token its changes carry. */
    record Session(String id, String name, byte[] tokenHash, String csrf, long createdAt) {
    }

    /** A session found for a request, with the role its token has now. */
    record Found(Session session, Role role) {
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Supplier<ApiTokens> tokens;
    private final InstantSource clock;
    // access order: the first entry is the least recently used
    private final Map<String, Session> byId = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<String, Long> lastUsed = new LinkedHashMap<>();

    Sessions(Supplier<ApiTokens> tokens, InstantSource clock) {
        this.tokens = tokens;
        this.clock = clock;
    }

    /** A new session for the token {@code presented}, or empty when the gateway does not know that token. */
    Optional<Found> login(String presented) {
        Optional<ApiTokens.Entry> entry = tokens.get().find(presented);
        if (entry.isEmpty()) {
            return Optional.empty();
        }
        prune();
        Session s = new Session(random(), entry.get().name(), entry.get().hash(), random(), clock.millis());
        byId.put(s.id(), s);
        lastUsed.put(s.id(), s.createdAt());
        return Optional.of(new Found(s, entry.get().role()));
    }

    /**
     * The session with id {@code id} while it is in use and its token is still in the file, with the token's role
     * now; using it keeps it alive.
     */
    Optional<Found> find(String id) {
        Optional<Found> found = peek(id);
        found.ifPresent(f -> lastUsed.put(id, clock.millis()));
        return found;
    }

    /**
     * Like {@link #find} but without keeping the session alive: for a stream that stays open, which must not keep
     * a forgotten tab's session from going idle.
     */
    Optional<Found> peek(String id) {
        if (id == null) {
            return Optional.empty();
        }
        Session s = byId.get(id);
        if (s == null) {
            return Optional.empty();
        }
        Optional<ApiTokens.Entry> entry = tokens.get().named(s.name());
        if (clock.millis() - lastUsed.get(id) > IDLE_MS || entry.isEmpty()
                || !MessageDigest.isEqual(entry.get().hash(), s.tokenHash())) {
            end(id);
            return Optional.empty();
        }
        return Optional.of(new Found(s, entry.get().role()));
    }

    /** Ends the session {@code id}, if there is one. */
    void end(String id) {
        byId.remove(id);
        lastUsed.remove(id);
    }

    /** How many sessions are held. */
    int size() {
        return byId.size();
    }

    /** True when {@code given} is the session's CSRF token, compared in constant time. */
    static boolean csrfMatches(Session s, String given) {
        return given != null && MessageDigest.isEqual(s.csrf().getBytes(), given.getBytes());
    }

    /** Drops idle sessions, then the least recently used while there are too many. */
    private void prune() {
        long now = clock.millis();
        lastUsed.entrySet().removeIf(e -> {
            boolean idle = now - e.getValue() > IDLE_MS;
            if (idle) {
                byId.remove(e.getKey());
            }
            return idle;
        });
        Iterator<String> oldest = byId.keySet().iterator();
        while (byId.size() >= MAX && oldest.hasNext()) {
            String id = oldest.next();
            oldest.remove();
            lastUsed.remove(id);
        }
    }

    private static String random() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
