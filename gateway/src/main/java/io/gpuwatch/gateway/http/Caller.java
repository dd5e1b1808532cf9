package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;

/**
 * Who made a request, as the access check found them: a token's name and role, or {@code local} with every
 * role on an open loopback API; {@code remote} is the peer's address, for the audit log; {@code session} the
 * console login the request came with, null for a bearer token or an open API.
 */
record Caller(String name, Role role, String remote, Sessions.Session session) {
    Caller(String name, Role role, String remote) {
        this(name, role, remote, null);
    }

    /** The name an open API's callers are audited under. */
    static final String LOCAL = "local";
}
