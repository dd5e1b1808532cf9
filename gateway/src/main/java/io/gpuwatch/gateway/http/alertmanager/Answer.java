package io.gpuwatch.gateway.http.alertmanager;

import io.gpuwatch.gateway.http.Replies;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * How the Alertmanager API answers, as Alertmanager's own does: JSON bodies, and an error as one JSON string
 * (its OpenAPI file's {@code BadRequest}), which amtool and Grafana print as it stands. A bad request's string
 * starts with the parameter or field at fault: {@code "endsAt: ..."}.
 */
final class Answer {
    private Answer() {
    }

    static void json(RoutingContext ctx, int status, Object body) {
        ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(Json.encode(body));
    }

    static void error(RoutingContext ctx, int status, String message) {
        json(ctx, status, message);
    }

    static void badRequest(RoutingContext ctx, String field, String message) {
        error(ctx, 400, field + ": " + message);
    }

    /** The request's JSON object, or null after answering 400 as Alertmanager does. */
    static JsonObject object(RoutingContext ctx) {
        return Replies.jsonBody(ctx, (field, message) -> badRequest(ctx, field, message));
    }
}
