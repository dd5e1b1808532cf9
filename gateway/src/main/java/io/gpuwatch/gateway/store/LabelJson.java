package io.gpuwatch.gateway.store;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/** Label and annotation maps as JSON text columns, keys sorted so equal maps store equal text. */
final class LabelJson {
    private LabelJson() {
    }

    static String encode(Map<String, String> m) {
        JsonObject o = new JsonObject();
        new TreeMap<>(m).forEach(o::put);
        return o.encode();
    }

    /** Decodes a column written by {@link #encode}; {@code where} names the row in the error. */
    static Map<String, String> decode(String json, String where) {
        try {
            JsonObject o = new JsonObject(json);
            Map<String, String> m = new LinkedHashMap<>();
            for (String k : o.fieldNames()) {
                m.put(k, o.getString(k));
            }
            return m;
        } catch (DecodeException | ClassCastException e) {
            throw new StoreException(where + " holds unreadable JSON: " + e.getMessage(), e);
        }
    }
}
