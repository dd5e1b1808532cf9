package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.Role;

/**
 * Who made a request, as the access check found them: a token's name and role, or {@code local} with every
 * role on an open loopback API; {@code remote} is the peer's address, for the audit log.
 */
record Caller(String name, Role role, String remote) {
    /** The name an open API's callers are audited under. */
    static final String LOCAL = "local";
}
