package io.gpuwatch.notify.render;

import java.util.List;
import java.util.Objects;

/** A batch rendered as text: a title for the whole group and one entry per alert, in batch order. */
public record Digest(String title, List<String> entries) {
    public Digest {
        Objects.requireNonNull(title, "title");
        entries = List.copyOf(entries);
    }

    /** The title as one line within {@code limit}. */
    public String title(Limit limit) {
        return limit.line(title);
    }

    /** The entries joined with {@code separator} within {@code limit}, ending in {@code +N more} when cut. */
    public String body(String separator, Limit limit) {
        return Truncation.join(entries, separator, limit);
    }
}
