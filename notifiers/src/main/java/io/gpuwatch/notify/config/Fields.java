package io.gpuwatch.notify.config;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads the fields of one configuration map (as a YAML loader hands it over), collecting a problem per bad
 * field instead of stopping at the first, so a user fixes a file in one go. Values read from secrets are
 * never echoed in problems.
 */
public final class Fields {
    private final Map<?, ?> map;
    private final String path;
    private final List<ConfigProblem> problems;

    public Fields(Map<?, ?> map, String path) {
        this(map == null ? Map.of() : map, path == null ? "" : path, new ArrayList<>());
    }

    private Fields(Map<?, ?> map, String path, List<ConfigProblem> problems) {
        this.map = map;
        this.path = path;
        this.problems = problems;
    }

    /** The path of a field of this map. */
    public String path(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** True when the field is present (a null value counts as absent). */
    public boolean has(String key) {
        return map.get(key) != null;
    }

    /** A string field, or null (with a problem when it is required or not a string). */
    public String string(String key, boolean required) {
        Object v = map.get(key);
        if (v == null) {
            if (required) {
                problem(key, "is required");
            }
            return null;
        }
        if (!(v instanceof String s)) {
            problem(key, "expected text, got " + kind(v));
            return null;
        }
        if (s.isBlank()) {
            problem(key, "must not be empty");
            return null;
        }
        return s;
    }

    /** A whole-number field within [min, max], or the fallback when absent or wrong (with a problem). */
    public long whole(String key, long fallback, long min, long max) {
        Object v = map.get(key);
        if (v == null) {
            return fallback;
        }
        Long n = asLong(v);
        if (n == null) {
            problem(key, "expected a whole number, got " + (v instanceof Number ? v : kind(v)));
            return fallback;
        }
        if (n < min || n > max) {
            problem(key, "must be " + (max == Long.MAX_VALUE || max == Integer.MAX_VALUE
                    ? "at least " + min : "between " + min + " and " + max) + ", got " + n);
            return fallback;
        }
        return n;
    }

    /** A nested map field, read into the same problem list, or null when absent or not a map. */
    public Fields nested(String key) {
        Object v = map.get(key);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Map<?, ?> m)) {
            problem(key, "expected a map of fields, got " + kind(v));
            return null;
        }
        return new Fields(m, path(key), problems);
    }

    /**
     * A nested map field of strings, from our names (keyed lower-case) to a service's, merged over
     * {@code defaults}; a value not in {@code allowed} is a problem, unless {@code allowed} is empty (any name).
     */
    public Map<String, String> names(String key, Map<String, String> defaults, List<String> allowed) {
        Map<String, String> names = new HashMap<>(defaults);
        Fields n = nested(key);
        if (n == null) {
            return names;
        }
        for (Object k : n.map.keySet()) {
            String ours = String.valueOf(k);
            String theirs = n.string(ours, true);
            if (theirs != null && !allowed.isEmpty() && !allowed.contains(theirs)) {
                n.problem(ours, "must be one of " + String.join(", ", allowed) + ", got " + theirs);
            } else if (theirs != null) {
                names.put(ours.toLowerCase(Locale.ROOT), theirs);
            }
        }
        return names;
    }

    /** Flags every field not in {@code known}, since a misspelt field silently falls back to its default. */
    public void only(Set<String> known) {
        for (Object k : map.keySet()) {
            String key = String.valueOf(k);
            if (!known.contains(key)) {
                problem(key, "unknown field; expected one of " + String.join(", ", new TreeSet<>(known)));
            }
        }
    }

    /** Records a problem at a field of this map. */
    public void problem(String key, String message) {
        problems.add(new ConfigProblem(path(key), message));
    }

    /** Every problem found so far, in this map and the maps read through it. */
    public List<ConfigProblem> problems() {
        return List.copyOf(problems);
    }

    private static Long asLong(Object v) {
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        try {
            if (v instanceof BigInteger b) {
                return b.longValueExact();
            }
            if (v instanceof BigDecimal d) {
                return d.longValueExact();
            }
            if ((v instanceof Double || v instanceof Float) && Double.isFinite(((Number) v).doubleValue())) {
                return new BigDecimal(((Number) v).doubleValue()).longValueExact();
            }
        } catch (ArithmeticException e) {
            return null;
        }
        return null;
    }

    private static String kind(Object v) {
        if (v instanceof String) {
            return "text";
        }
        if (v instanceof Boolean) {
            return "true/false";
        }
        if (v instanceof Map) {
            return "a map";
        }
        if (v instanceof List) {
            return "a list";
        }
        return v.getClass().getSimpleName();
    }
}
