package io.gpuwatch.probe.sched;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads a scheduler's JSON answer field by field, so that a field of the wrong type is reported with the source
 * and its path ({@code squeue.json: jobs[3].job_state: …}) rather than as a ClassCastException.
 */
public final class JsonInput {
    private final String source;

    public JsonInput(String source) {
        this.source = source;
    }

    public String source() {
        return source;
    }

    /** The whole answer as an object; Jackson's message names the line and column of a syntax error. */
    public JsonObject document(String text) throws SchedInputError {
        try {
            return new JsonObject(text);
        } catch (DecodeException | ClassCastException e) {
            throw new SchedInputError(source, "not a JSON object: " + oneLine(e.getMessage()));
        }
    }

    /** An error at {@code path} of this source. */
    public SchedInputError error(String path, String message) {
        return new SchedInputError(source, path + ": " + message);
    }

    /** The objects of array {@code key}, each with its path; empty when absent. */
    public List<Item> items(JsonObject o, String path, String key) throws SchedInputError {
        Object v = o.getValue(key);
        String at = join(path, key);
        if (v == null) {
            return List.of();
        }
        if (!(v instanceof JsonArray a)) {
            throw error(at, "expected an array, got " + shown(v));
        }
        List<Item> out = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) {
            Object e = a.getValue(i);
            if (!(e instanceof JsonObject eo)) {
                throw error(at + "[" + i + "]", "expected an object, got " + shown(e));
            }
            out.add(new Item(eo, at + "[" + i + "]"));
        }
        return out;
    }

    /** Object {@code key}, or null when absent. */
    public JsonObject object(JsonObject o, String path, String key) throws SchedInputError {
        Object v = o.getValue(key);
        if (v == null || v instanceof JsonObject) {
            return (JsonObject) v;
        }
        throw error(join(path, key), "expected an object, got " + shown(v));
    }

    /** String {@code key}, or null when absent. */
    public String string(JsonObject o, String path, String key) throws SchedInputError {
        Object v = o.getValue(key);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        throw error(join(path, key), "expected a string, got " + shown(v));
    }

    /** A required string. */
    public String requiredString(JsonObject o, String path, String key) throws SchedInputError {
        String s = string(o, path, key);
        if (s == null) {
            throw error(join(path, key), "missing");
        }
        return s;
    }

    /** The strings of array {@code key}; empty when absent. */
    public List<String> strings(JsonObject o, String path, String key) throws SchedInputError {
        Object v = o.getValue(key);
        String at = join(path, key);
        if (v == null) {
            return List.of();
        }
        if (!(v instanceof JsonArray a)) {
            throw error(at, "expected an array of strings, got " + shown(v));
        }
        List<String> out = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) {
            if (!(a.getValue(i) instanceof String s)) {
                throw error(at + "[" + i + "]", "expected a string, got " + shown(a.getValue(i)));
            }
            out.add(s);
        }
        return out;
    }

    /** Number {@code key}, or NaN when absent. */
    public double number(JsonObject o, String path, String key) throws SchedInputError {
        Object v = o.getValue(key);
        if (v == null) {
            return Double.NaN;
        }
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        throw error(join(path, key), "expected a number, got " + shown(v));
    }

    /** {@code path.key}, or {@code key} at the top. */
    public static String join(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** A value as an error shows it: short, with its JSON type visible. */
    public static String shown(Object v) {
        String s = v instanceof String ? "\"" + v + "\"" : String.valueOf(v);
        return s.length() > 60 ? s.substring(0, 57) + "…" : s;
    }

    private static String oneLine(String s) {
        if (s == null) {
            return "unreadable";
        }
        // Jackson puts the line and column on a line of their own: keep them, on one line
        return s.replaceAll("\\s*\\R\\s*", " ");
    }

    /** An element of an array with its path. */
    public record Item(JsonObject value, String path) {
    }
}
