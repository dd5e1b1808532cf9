package io.gpuwatch.gateway.store;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.rules.eval.AlertState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One row per fingerprint holding the ledger's latest {@link Alert}, resolved ones included (so a restart
 * knows what already ended), plus every state change in a history table.
 */
public final class AlertTable {
    private static final String COLUMNS = "fingerprint, rule, severity, labels, annotations, alert_state, "
            + "active_since, fired_at, resolved_at";

    private final Store store;

    AlertTable(Store store) {
        this.store = store;
    }

    /**
     * Stores {@code alert} as the current state of its fingerprint; when its state differs from the stored one
     * (or there was none) the change is appended to the history at {@code at}. Returns the state it replaced.
     */
    public Optional<AlertState> save(Alert alert, Instant at) {
        return store.write("save alert " + alert.fingerprint(), c -> {
            Optional<Stored> before = stored(c, alert.fingerprint());
            boolean changed = before.map(b -> b.state() != alert.state()).orElse(true);
            long lastTransition = changed ? at.toEpochMilli() : before.get().lastTransition();
            try (PreparedStatement ps = c.prepareStatement("MERGE INTO alert (" + COLUMNS + ", last_transition) "
                    + "KEY (fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, alert.fingerprint());
                ps.setString(2, alert.rule());
                ps.setString(3, alert.severity());
                ps.setString(4, LabelJson.encode(alert.labels()));
                ps.setString(5, LabelJson.encode(alert.annotations()));
                ps.setString(6, alert.state().name());
                ps.setLong(7, alert.activeSince());
                ps.setLong(8, alert.firedAt());
                ps.setLong(9, alert.resolvedAt());
                ps.setLong(10, lastTransition);
                ps.executeUpdate();
            }
            if (changed) {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO alert_history (fingerprint, rule, "
                        + "from_state, to_state, changed_at) VALUES (?, ?, ?, ?, ?)")) {
                    ps.setString(1, alert.fingerprint());
                    ps.setString(2, alert.rule());
                    ps.setString(3, before.map(b -> b.state().name()).orElse(null));
                    ps.setString(4, alert.state().name());
                    ps.setLong(5, at.toEpochMilli());
                    ps.executeUpdate();
                }
            }
            return before.map(Stored::state);
        });
    }

    /** The stored alert of {@code fingerprint}, live or ended. */
    public Optional<Alert> get(String fingerprint) {
        return store.read("read alert " + fingerprint, c -> {
            List<Alert> found = query(c, "SELECT " + COLUMNS + " FROM alert WHERE fingerprint = ?", fingerprint);
            return found.stream().findFirst();
        });
    }

    /** Alerts that are pending or firing, oldest first. */
    public List<Alert> live() {
        return store.read("list live alerts", c -> query(c, "SELECT " + COLUMNS + " FROM alert "
                + "WHERE alert_state IN ('PENDING', 'FIRING') ORDER BY active_since, fingerprint"));
    }

    /** Resolved alerts, most recently resolved first, at most {@code limit}. */
    public List<Alert> ended(int limit) {
        return store.read("list ended alerts", c -> query(c, "SELECT " + COLUMNS + " FROM alert "
                + "WHERE alert_state IN ('RESOLVED', 'INACTIVE') ORDER BY resolved_at DESC, fingerprint LIMIT ?",
                limit));
    }

    /** When the stored state of {@code fingerprint} last changed. */
    public Optional<Instant> lastTransition(String fingerprint) {
        return store.read("read alert " + fingerprint, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT last_transition FROM alert WHERE fingerprint = ?")) {
                ps.setString(1, fingerprint);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(Instant.ofEpochMilli(rs.getLong(1))) : Optional.empty();
                }
            }
        });
    }

    /** Every recorded state change of {@code fingerprint}, oldest first. */
    public List<AlertTransition> history(String fingerprint) {
        return store.read("read the history of alert " + fingerprint, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT seq, fingerprint, rule, from_state, to_state, "
                    + "changed_at FROM alert_history WHERE fingerprint = ? ORDER BY seq")) {
                ps.setString(1, fingerprint);
                List<AlertTransition> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String from = rs.getString(4);
                        out.add(new AlertTransition(rs.getLong(1), rs.getString(2), rs.getString(3),
                                from == null ? null : state(from, "alert_history " + rs.getLong(1)),
                                state(rs.getString(5), "alert_history " + rs.getLong(1)),
                                Instant.ofEpochMilli(rs.getLong(6))));
                    }
                }
                return out;
            }
        });
    }

    /** Deletes history entries older than {@code before}; returns how many went. */
    public int pruneHistory(Instant before) {
        return store.write("prune alert history", c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM alert_history WHERE changed_at < ?")) {
                ps.setLong(1, before.toEpochMilli());
                return ps.executeUpdate();
            }
        });
    }

    private record Stored(AlertState state, long lastTransition) {
    }

    private static Optional<Stored> stored(Connection c, String fingerprint) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT alert_state, last_transition FROM alert "
                + "WHERE fingerprint = ?")) {
            ps.setString(1, fingerprint);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(new Stored(state(rs.getString(1), "alert " + fingerprint), rs.getLong(2)))
                        : Optional.empty();
            }
        }
    }

    private static AlertState state(String name, String where) {
        try {
            return AlertState.valueOf(name);
        } catch (IllegalArgumentException e) {
            throw new StoreException(where + " has an unknown alert state `" + name + "`", e);
        }
    }

    private static List<Alert> query(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            List<Alert> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String fp = rs.getString(1);
                    String where = "alert " + fp;
                    out.add(new Alert(fp, rs.getString(2), rs.getString(3),
                            LabelJson.decode(rs.getString(4), where + " labels"),
                            LabelJson.decode(rs.getString(5), where + " annotations"),
                            rs.getLong(7), rs.getLong(8), rs.getLong(9), state(rs.getString(6), where)));
                }
            }
            return out;
        }
    }
}
