package io.gpuwatch.gateway.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Where each escalation stands, one row per alert; written with the outbox rows of the page it sends. */
public final class EscalationTable {
    private final Store store;

    EscalationTable(Store store) {
        this.store = store;
    }

    /** Keeps {@code e} as the escalation of its alert, replacing the one kept before. */
    public void save(Escalation e) {
        store.write("save the escalation of " + e.fingerprint(), c -> {
            try (PreparedStatement ps = c.prepareStatement("MERGE INTO escalation (fingerprint, active_since, "
                    + "policy, round, step, deadline, escalation_state) KEY (fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, e.fingerprint());
                ps.setLong(2, e.activeSince());
                ps.setString(3, e.policy());
                ps.setInt(4, e.round());
                ps.setInt(5, e.step());
                if (e.deadline() == null) {
                    ps.setNull(6, Types.BIGINT);
                } else {
                    ps.setLong(6, e.deadline().toEpochMilli());
                }
                ps.setString(7, e.state().name());
                ps.executeUpdate();
            }
            return null;
        });
    }

    /** Forgets the escalation of the alert {@code fingerprint}, which resolved. */
    public void remove(String fingerprint) {
        store.write("remove the escalation of " + fingerprint, c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM escalation WHERE fingerprint = ?")) {
                ps.setString(1, fingerprint);
                ps.executeUpdate();
            }
            return null;
        });
    }

    /** Every escalation kept. */
    public List<Escalation> all() {
        return store.read("read the escalations", c -> {
            List<Escalation> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT fingerprint, active_since, policy, round, step, "
                    + "deadline, escalation_state FROM escalation ORDER BY fingerprint");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(row(rs));
                }
            }
            return out;
        });
    }

    private static Escalation row(ResultSet rs) throws SQLException {
        long deadline = rs.getLong(6);
        Instant at = rs.wasNull() ? null : Instant.ofEpochMilli(deadline);
        return new Escalation(rs.getString(1), rs.getLong(2), rs.getString(3), rs.getInt(4), rs.getInt(5), at,
                Escalation.State.valueOf(rs.getString(7)));
    }
}
