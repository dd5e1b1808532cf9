package io.gpuwatch.gateway.http;

import io.vertx.ext.web.Router;

/**
 * Routes from a package the HTTP API does not depend on (Alertmanager's v2 API), mounted among the API's own,
 * behind the same access checks and editing silences the same way; the gateway hands them to {@link ApiRoutes}.
 */
@FunctionalInterface
public interface ApiExtension {
    /** Mounts the routes on {@code router}. */
    void mount(Router router, AccessGuard guard, SilenceEdits silences);
}
