package io.gpuwatch.gateway.cluster;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/** Reads the fields of a shared record's JSON, each failure naming the record and the field. */
final class FormReader {
    private FormReader() {
    }

    /** The JSON object {@code text} of the current {@link SharedForm#VERSION}. */
    static JsonObject object(String kind, String key, String text) {
        JsonObject json;
        try {
            json = new JsonObject(text);
        } catch (DecodeException e) {
            throw new IllegalArgumentException(kind + " " + key + ": not a JSON object: " + e.getMessage());
        }
        Object v = json.getValue("v");
        if (!(v instanceof Number n) || n.intValue() != SharedForm.VERSION) {
            throw new IllegalArgumentException(kind + " " + key + ": written in version " + v + " of the shared form,"
                    + " this gateway reads version " + SharedForm.VERSION);
        }
        return json;
    }

    static String text(JsonObject json, String kind, String key, String field) {
        if (!(json.getValue(field) instanceof String s) || s.isBlank()) {
            throw new IllegalArgumentException(kind + " " + key + ": " + field + ": expected non-empty text");
        }
        return s;
    }

    static String optionalText(JsonObject json, String kind, String key, String field) {
        Object v = json.getValue(field);
        if (v != null && !(v instanceof String)) {
            throw new IllegalArgumentException(kind + " " + key + ": " + field + ": expected text");
        }
        return (String) v;
    }

    static Instant time(JsonObject json, String kind, String key, String field) {
        String s = text(json, kind, key, field);
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(kind + " " + key + ": " + field + ": expected an RFC 3339 time, got "
                    + s);
        }
    }
}
