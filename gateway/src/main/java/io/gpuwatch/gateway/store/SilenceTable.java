package io.gpuwatch.gateway.store;

import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.match.MatcherException;
import io.gpuwatch.gateway.match.MatcherParser;
import io.gpuwatch.gateway.silence.Silence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Silences by id, with their matchers as text in Alertmanager's {@code {a="b", c=~"d"}} form. Expiring one
 * moves its end to now and keeps it, so the audit trail shows who muted what and for how long.
 */
public final class SilenceTable {
    private static final String COLUMNS = "id, matchers, starts_at, ends_at, created_by, silence_comment, updated_at";

    private final Store store;

    SilenceTable(Store store) {
        this.store = store;
    }

    /** Creates or replaces the silence with {@code silence.id()}. */
    public void save(Silence silence) {
        store.write("save silence " + silence.id(), c -> {
            try (PreparedStatement ps = c.prepareStatement("MERGE INTO silence (" + COLUMNS + ") KEY (id) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, silence.id());
                ps.setString(2, silence.matchers().stream().map(Matcher::toString)
                        .collect(Collectors.joining(", ", "{", "}")));
                ps.setLong(3, silence.startsAt().toEpochMilli());
                ps.setLong(4, silence.endsAt().toEpochMilli());
                ps.setString(5, silence.createdBy());
                ps.setString(6, silence.comment());
                ps.setLong(7, silence.updatedAt().toEpochMilli());
                return ps.executeUpdate();
            }
        });
    }

    /** The silence {@code id}, expired or not. */
    public Optional<Silence> get(String id) {
        return store.read("read silence " + id, c -> query(c, "WHERE id = ?", id).stream().findFirst());
    }

    /** All silences, expired ones included, by start then id. */
    public List<Silence> all() {
        return store.read("list silences", c -> query(c, ""));
    }

    /**
     * Ends the silence {@code id} at {@code at} unless it has already ended; false when there is no such
     * silence or it was expired already.
     */
    public boolean expire(String id, Instant at) {
        return store.write("expire silence " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE silence SET ends_at = ?, updated_at = ? "
                    + "WHERE id = ? AND ends_at > ?")) {
                long ms = at.toEpochMilli();
                ps.setLong(1, ms);
                ps.setLong(2, ms);
                ps.setString(3, id);
                ps.setLong(4, ms);
                return ps.executeUpdate() == 1;
            }
        });
    }

    private static List<Silence> query(Connection c, String where, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM silence " + where
                + " ORDER BY starts_at, id")) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            List<Silence> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String id = rs.getString(1);
                    out.add(new Silence(id, matchers(id, rs.getString(2)), Instant.ofEpochMilli(rs.getLong(3)),
                            Instant.ofEpochMilli(rs.getLong(4)), rs.getString(5), rs.getString(6),
                            Instant.ofEpochMilli(rs.getLong(7))));
                }
            }
            return out;
        }
    }

    private static List<Matcher> matchers(String id, String text) {
        try {
            return MatcherParser.parseList(text);
        } catch (MatcherException e) {
            throw new StoreException("silence " + id + " has unreadable matchers at offset " + e.offset() + " of `"
                    + text + "`: " + e.getMessage(), e);
        }
    }
}
