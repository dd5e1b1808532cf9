package io.gpuwatch.gateway.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The last delivery per receiver and key, as Alertmanager's nflog keeps it: before sending, compare the
 * hashes of what would go out with {@link NotificationLogEntry#covers} to skip a page already sent.
 */
public final class NotificationLog {
    private final Store store;

    NotificationLog(Store store) {
        this.store = store;
    }

    /** Records a delivery, replacing the previous entry of the same receiver and key. */
    public void record(NotificationLogEntry e) {
        store.write("log the delivery to " + e.receiver() + " of " + e.key(), c -> {
            try (PreparedStatement ps = c.prepareStatement("MERGE INTO notification_log (receiver, nkey, "
                    + "firing_hash, resolved_hash, sent_at, firing_fps) KEY (receiver, nkey) VALUES (?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, e.receiver());
                ps.setString(2, e.key());
                ps.setString(3, e.firingHash());
                ps.setString(4, e.resolvedHash());
                ps.setLong(5, e.sentAt().toEpochMilli());
                ps.setString(6, e.firing() == null ? null : String.join(",", e.firing()));
                return ps.executeUpdate();
            }
        });
    }

    /** The last delivery to {@code receiver} for {@code key}. */
    public Optional<NotificationLogEntry> last(String receiver, String key) {
        return store.read("read the delivery log of " + receiver, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT receiver, nkey, firing_hash, resolved_hash, "
                    + "sent_at, firing_fps FROM notification_log WHERE receiver = ? AND nkey = ?")) {
                ps.setString(1, receiver);
                ps.setString(2, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(entry(rs)) : Optional.empty();
                }
            }
        });
    }

    /** Every entry, for a restarted gateway to learn what each group's receiver was last told. */
    public List<NotificationLogEntry> all() {
        return store.read("read the delivery log", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT receiver, nkey, firing_hash, resolved_hash, "
                    + "sent_at, firing_fps FROM notification_log");
                 ResultSet rs = ps.executeQuery()) {
                List<NotificationLogEntry> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(entry(rs));
                }
                return out;
            }
        });
    }

    private static NotificationLogEntry entry(ResultSet rs) throws java.sql.SQLException {
        String fps = rs.getString(6);
        List<String> firing = fps == null ? null : fps.isEmpty() ? List.of() : Arrays.asList(fps.split(","));
        return new NotificationLogEntry(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                Instant.ofEpochMilli(rs.getLong(5)), firing);
    }

    /** Forgets entries last sent before {@code before} (Alertmanager keeps 120 h); returns how many went. */
    public int prune(Instant before) {
        return store.write("prune the delivery log", c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM notification_log WHERE sent_at < ?")) {
                ps.setLong(1, before.toEpochMilli());
                return ps.executeUpdate();
            }
        });
    }
}
