package io.gpuwatch.gateway.http;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.function.BiConsumer;

/** How every API route answers: JSON or text, a 400 naming the bad field, a 503 for a change the store refused. */
public final class Replies {
    /** Far above any silence or acknowledgement a person writes. */
    private static final int BODY_LIMIT = 64 * 1024;

    private Replies() {
    }

    /** Reads a route's body, refusing one over the limit with 413. */
    public static BodyHandler body() {
        return BodyHandler.create().setBodyLimit(BODY_LIMIT);
    }

    static void text(RoutingContext ctx, int status, String body) {
        ctx.response().setStatusCode(status).putHeader("Content-Type", "text/plain; charset=utf-8").end(body);
    }

    static void json(RoutingContext ctx, int status, JsonObject body) {
        ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encodePrettily());
    }

    static void badRequest(RoutingContext ctx, String field, String message) {
        json(ctx, 400, new JsonObject().put("field", field).put("error", field + ": " + message));
    }

    static void notFound(RoutingContext ctx, String message) {
        json(ctx, 404, new JsonObject().put("error", message));
    }

    static void unstored(RoutingContext ctx, String what, Throwable e) {
        json(ctx, 503, new JsonObject().put("error", what + " could not be stored, so it was not made: "
                + e.getMessage()));
    }

    /** The request's JSON object, or null after answering 400. */
    static JsonObject jsonBody(RoutingContext ctx) {
        return jsonBody(ctx, (field, message) -> badRequest(ctx, field, message));
    }

    /**
     * The request's JSON object, or null after {@code refuse} answered the field ({@code body}) and what is wrong
     * with it, for an API whose errors have a shape of their own.
     */
    public static JsonObject jsonBody(RoutingContext ctx, BiConsumer<String, String> refuse) {
        try {
            JsonObject body = ctx.body().asJsonObject();
            if (body == null) {
                refuse.accept("body", "a JSON object is required");
            }
            return body;
        } catch (DecodeException | ClassCastException e) {
            refuse.accept("body", "not a JSON object: " + e.getMessage());
            return null;
        }
    }

    /** An RFC 3339 time, or null when {@code value} is not one. */
    public static Instant time(Object value) {
        if (!(value instanceof String s)) {
            return null;
        }
        try {
            return OffsetDateTime.parse(s).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
