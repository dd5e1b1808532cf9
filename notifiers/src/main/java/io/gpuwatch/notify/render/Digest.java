package io.gpuwatch.notify.render;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A batch rendered as text: a title for the whole group and one entry per alert, in batch order, with the
 * markup their slot values are escaped for. Everything is cut before it is escaped, so no escape is split.
 */
public record Digest(Text title, List<Text> entries, Markup markup) {
    public Digest {
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(markup, "markup");
        entries = List.copyOf(entries);
    }

    /** The title as one line within {@code limit}, escaped for this digest's markup. */
    public String title(Limit limit) {
        return title.line().cut(limit, markup);
    }

    /** The title as one line within {@code limit}, unescaped, for plain-text fields that show it as typed. */
    public String plainTitle(Limit limit) {
        return title.line().cut(limit, Markup.PLAIN);
    }

    /** The entries as sent, each escaped for this digest's markup. */
    public List<String> shownEntries() {
        return entries.stream().map(e -> e.in(markup)).toList();
    }

    /** The entries joined with {@code separator} within {@code limit} (see {@link Truncation#join}). */
    public String body(String separator, Limit limit) {
        return Truncation.join(entries, markup, separator, limit);
    }

    /** The largest message made of the entries that passes {@code fits} (see {@link Truncation#fit}). */
    public <T> Optional<T> fit(Function<List<String>, T> build, Predicate<T> fits) {
        return Truncation.fit(entries, markup, build, fits);
    }
}
