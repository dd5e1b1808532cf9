package io.gpuwatch.gateway.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Every change made to the gateway's state through its API, newest last; never pruned. */
public final class AuditTable {
    private final Store store;

    AuditTable(Store store) {
        this.store = store;
    }

    /** Records {@code entry} (its id is ignored); returns the id given. */
    public long add(AuditEntry entry) {
        return store.write("record " + entry.action() + " by " + entry.who() + " in the audit log", c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO audit (at, who, action, target, detail, "
                    + "remote) VALUES (?, ?, ?, ?, ?, ?)", new String[] {"ID"})) {
                ps.setLong(1, entry.at().toEpochMilli());
                ps.setString(2, entry.who());
                ps.setString(3, entry.action());
                ps.setString(4, entry.target());
                ps.setString(5, entry.detail());
                ps.setString(6, entry.remote());
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    keys.next();
                    return keys.getLong(1);
                }
            }
        });
    }

    /** Up to {@code limit} entries, newest first, skipping the {@code offset} newest. */
    public List<AuditEntry> newest(int limit, int offset) {
        return store.read("read the audit log", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT id, at, who, action, target, detail, remote "
                    + "FROM audit ORDER BY id DESC LIMIT ? OFFSET ?")) {
                ps.setInt(1, limit);
                ps.setInt(2, offset);
                List<AuditEntry> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new AuditEntry(rs.getLong(1), Instant.ofEpochMilli(rs.getLong(2)), rs.getString(3),
                                rs.getString(4), rs.getString(5), rs.getString(6), rs.getString(7)));
                    }
                }
                return out;
            }
        });
    }

    /** How many entries there are. */
    public long count() {
        return store.read("count the audit log", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM audit");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }
}
