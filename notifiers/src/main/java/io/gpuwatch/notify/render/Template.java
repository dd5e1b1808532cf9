package io.gpuwatch.notify.render;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.config.Fields;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A user-overridable text with {@code {{…}}} slots. Per alert: {@code status} ({@code firing}/{@code resolved}),
 * {@code fingerprint}, {@code startsAt}, {@code endsAt}, {@code generatorURL}, {@code labels} (all, as
 * {@code k=v, …}), {@code labels.NAME}, {@code annotations.NAME}; per batch: {@code count}, {@code firing},
 * {@code resolved} (how many alerts); and {@code "literal"}. {@code a|b|"x"} takes the first that is not empty.
 * Rendered for a whole batch ({@link #groupText}), a per-alert slot gives the value all alerts share (empty
 * when they differ), and {@code status} is {@code firing} while any alert fires.
 */
public final class Template {
    private static final Pattern SLOT = Pattern.compile("\\{\\{(.*?)}}", Pattern.DOTALL);
    private static final Set<String> WORDS = Set.of("status", "fingerprint", "startsAt", "endsAt", "generatorURL",
            "labels", "count", "firing", "resolved");

    private final String source;
    private final List<Part> parts;

    /** A piece of a template: fixed text, or a slot whose value is escaped for the target's markup. */
    private record Part(String literal, List<String> choices) {
    }

    private Template(String source, List<Part> parts) {
        this.source = source;
        this.parts = parts;
    }

    /** Compiles a template; an {@link IllegalArgumentException} says what is wrong with it, in words for users. */
    /**
     * The template source in field {@code key} of {@code f}, checked by compiling it; {@code fallback} when the
     * field is absent, null with a problem recorded in {@code f} when it does not compile.
     */
    public static String read(Fields f, String key, String fallback) {
        if (!f.has(key)) {
            return fallback;
        }
        String source = f.string(key, true);
        if (source == null) {
            return null;
        }
        try {
            compile(source);
            return source;
        } catch (IllegalArgumentException e) {
            f.problem(key, e.getMessage());
            return null;
        }
    }

    public static Template compile(String source) {
        if (source == null) {
            throw new IllegalArgumentException("a template needs text");
        }
        List<Part> parts = new ArrayList<>();
        Matcher m = SLOT.matcher(source);
        int at = 0;
        while (m.find()) {
            parts.add(new Part(source.substring(at, m.start()), null));
            parts.add(slot(m.group(1).trim()));
            at = m.end();
        }
        String tail = source.substring(at);
        if (tail.contains("{{")) {
            throw new IllegalArgumentException("has a '{{' without its closing '}}'");
        }
        parts.add(new Part(tail, null));
        return new Template(source, List.copyOf(parts));
    }

    /** The text the template was compiled from. */
    public String source() {
        return source;
    }

    /** The text for one alert of {@code batch}, slot values escaped for {@code markup} (literals are not). */
    public String render(Notification n, List<Notification> batch, Markup markup) {
        return text(n, batch).in(markup);
    }

    /** The text for one alert of {@code batch}, slot values marked for escaping. */
    public Text text(Notification n, List<Notification> batch) {
        return fill(name -> alertValue(name, n, batch));
    }

    /** The text for a whole batch, slot values marked for escaping. */
    public Text groupText(List<Notification> batch) {
        return fill(name -> groupValue(name, batch));
    }

    private Text fill(Function<String, String> values) {
        Text.Builder b = new Text.Builder();
        for (Part part : parts) {
            if (part.choices() == null) {
                b.literal(part.literal());
                continue;
            }
            for (String choice : part.choices()) {
                boolean literal = choice.startsWith("\"");
                String v = literal ? choice.substring(1, choice.length() - 1) : values.apply(choice);
                if (!v.isEmpty()) {
                    if (literal) {
                        b.literal(v);
                    } else {
                        b.value(v);
                    }
                    break;
                }
            }
        }
        return b.build();
    }

    private static Part slot(String expression) {
        List<String> choices = new ArrayList<>();
        for (String raw : expression.split("\\|", -1)) {
            String choice = raw.trim();
            boolean literal = choice.length() >= 2 && choice.startsWith("\"") && choice.endsWith("\"");
            boolean keyed = (choice.startsWith("labels.") && choice.length() > "labels.".length())
                    || (choice.startsWith("annotations.") && choice.length() > "annotations.".length());
            if (!literal && !keyed && !WORDS.contains(choice)) {
                throw new IllegalArgumentException("unknown placeholder '" + choice + "' in {{" + expression
                        + "}}; use one of " + String.join(", ", new TreeSet<>(WORDS))
                        + ", labels.NAME, annotations.NAME or \"text\"");
            }
            choices.add(choice);
        }
        return new Part(null, List.copyOf(choices));
    }

    private static String alertValue(String name, Notification n, List<Notification> batch) {
        if (name.startsWith("labels.")) {
            return n.labels().getOrDefault(name.substring("labels.".length()), "");
        }
        if (name.startsWith("annotations.")) {
            return n.annotations().getOrDefault(name.substring("annotations.".length()), "");
        }
        return switch (name) {
            case "status" -> n.status() == Notification.Status.FIRING ? "firing" : "resolved";
            case "fingerprint" -> n.fingerprint();
            case "startsAt" -> time(n.startsAt());
            case "endsAt" -> n.endsAt() == null ? "" : time(n.endsAt());
            case "generatorURL" -> n.generatorUrl();
            case "labels" -> pairs(n.labels());
            default -> batchValue(name, batch);
        };
    }

    private static String groupValue(String name, List<Notification> batch) {
        if (name.equals("status")) {
            return batch.stream().anyMatch(n -> n.status() == Notification.Status.FIRING) ? "firing" : "resolved";
        }
        if (name.equals("count") || name.equals("firing") || name.equals("resolved")) {
            return batchValue(name, batch);
        }
        if (name.equals("labels")) {
            return pairs(common(batch));
        }
        String shared = null;
        for (Notification n : batch) {
            String v = alertValue(name, n, batch);
            if (shared != null && !shared.equals(v)) {
                return "";
            }
            shared = v;
        }
        return shared == null ? "" : shared;
    }

    private static String batchValue(String name, List<Notification> batch) {
        return switch (name) {
            case "count" -> String.valueOf(batch.size());
            case "firing" -> String.valueOf(batch.stream().filter(n -> n.status() == Notification.Status.FIRING).count());
            case "resolved" -> String.valueOf(batch.stream()
                    .filter(n -> n.status() == Notification.Status.RESOLVED).count());
            default -> throw new IllegalStateException("compile() admitted an unknown placeholder " + name);
        };
    }

    private static Map<String, String> common(List<Notification> batch) {
        if (batch.isEmpty()) {
            return Map.of();
        }
        Map<String, String> shared = new TreeMap<>(batch.get(0).labels());
        for (Notification n : batch) {
            shared.entrySet().removeIf(e -> !e.getValue().equals(n.labels().get(e.getKey())));
        }
        return shared;
    }

    private static String time(Instant t) {
        return DateTimeFormatter.ISO_INSTANT.format(t);
    }

    private static String pairs(Map<String, String> labels) {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(labels).forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ", ").append(k).append('=').append(v));
        return sb.toString();
    }

    @Override
    public String toString() {
        return "Template[" + source + "]";
    }
}
