package io.gpuwatch.notify.render;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.config.Fields;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The two templates a chat message is made of: {@code title} for the batch and {@code entry} for each alert.
 * Receivers ship defaults in their target's markup; users override either under {@code templates:}.
 */
public record Layout(Template title, Template entry) {
    /** The config keys under {@code templates:}. */
    public static final Set<String> KEYS = Set.of("title", "entry");

    public Layout {
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(entry, "entry");
    }

    /** A layout from template sources; an {@link IllegalArgumentException} says which one is wrong and why. */
    public static Layout of(String title, String entry) {
        return new Layout(compile("title", title), compile("entry", entry));
    }

    /**
     * The layout in the nested map {@code key} of {@code f} ({@code {title: …, entry: …}}), each template
     * falling back to {@code defaults}; null with a problem at the template's field path when one is wrong.
     */
    public static Layout read(Fields f, String key, Layout defaults) {
        if (!f.has(key)) {
            return defaults;
        }
        Fields t = f.nested(key);
        if (t == null) {
            return null;
        }
        t.only(KEYS);
        Template title = read(t, "title", defaults.title());
        Template entry = read(t, "entry", defaults.entry());
        return title == null || entry == null ? null : new Layout(title, entry);
    }

    /** The batch as a title and one entry per alert, every slot value to be escaped for {@code markup}. */
    public Digest render(List<Notification> batch, Markup markup) {
        List<Text> entries = new ArrayList<>(batch.size());
        for (Notification n : batch) {
            entries.add(entry.text(n, batch));
        }
        return new Digest(title.groupText(batch), entries, markup);
    }

    private static Template read(Fields t, String key, Template fallback) {
        if (!t.has(key)) {
            return fallback;
        }
        String source = t.string(key, true);
        if (source == null) {
            return null;
        }
        try {
            return Template.compile(source);
        } catch (IllegalArgumentException e) {
            t.problem(key, e.getMessage());
            return null;
        }
    }

    private static Template compile(String which, String source) {
        try {
            return Template.compile(source);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(which + " template " + e.getMessage(), e);
        }
    }
}
