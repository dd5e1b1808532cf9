package io.gpuwatch.gateway.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Notifications as rows that outlive the process. A worker {@link #claim}s due rows under a lease, sends them,
 * then {@link #complete}s or {@link #fail}s each. A worker that dies mid-send leaves its lease to expire (or to
 * be released when the store is next opened), and the row is claimed again: a row is sent at least once,
 * never lost, and the receivers' dedup keys make the repeat harmless.
 */
public final class Outbox {
    private static final String COLUMNS = "id, receiver, dedup_key, payload, created_at, attempts, next_attempt_at, "
            + "last_error, row_state, lease_token, lease_until, sent_at";
    /** The same columns from the outbox aliased {@code o}, for a join. */
    private static final String JOINED_COLUMNS = COLUMNS.replaceAll("(\\w+)", "o.$1");
    // a row is still this worker's while its token is on it, even past the lease, as long as no one re-claimed it
    private static final String HELD = "id = ? AND lease_token = ? AND row_state = 'PENDING'";

    private final Store store;
    private final Backoff backoff;

    Outbox(Store store, Backoff backoff) {
        this.store = store;
        this.backoff = backoff;
    }

    /** Adds a notification for {@code receiver} that tells of no alert by fingerprint, due at once; returns its id. */
    public long enqueue(String receiver, String key, String payload) {
        return enqueue(receiver, key, payload, List.of());
    }

    /**
     * Adds a notification for {@code receiver} telling of the alerts {@code fingerprints}, due at once; returns its
     * id. The fingerprints are what {@link #mentioning} finds it by.
     */
    public long enqueue(String receiver, String key, String payload, Collection<String> fingerprints) {
        return store.write("queue a notification for " + receiver,
                c -> enqueue(c, receiver, key, payload, fingerprints, store.now().toEpochMilli()));
    }

    private static long enqueue(Connection c, String receiver, String key, String payload,
            Collection<String> fingerprints, long now) throws SQLException {
        long id;
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox (receiver, dedup_key, payload, "
                + "created_at, attempts, next_attempt_at, row_state) VALUES (?, ?, ?, ?, 0, ?, 'PENDING')",
                new String[] {"ID"})) {
            ps.setString(1, receiver);
            ps.setString(2, key);
            ps.setString(3, payload);
            ps.setLong(4, now);
            ps.setLong(5, now);
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                keys.next();
                id = keys.getLong(1);
            }
        }
        mention(c, id, fingerprints);
        return id;
    }

    private static void mention(Connection c, long id, Collection<String> fingerprints) throws SQLException {
        try (PreparedStatement mention = c.prepareStatement("INSERT INTO outbox_alert (fingerprint, outbox_id) "
                + "VALUES (?, ?)")) {
            for (String fp : new TreeSet<>(fingerprints)) {
                mention.setString(1, fp);
                mention.setLong(2, id);
                mention.executeUpdate();
            }
        }
    }

    /**
     * Puts {@code payload}, telling of {@code fingerprints}, in the one row {@code receiver}'s notifications under
     * {@code key} share, due at once, for a notification only the latest of which matters (a re-send of what
     * fires): a row waiting or settled takes the new payload and starts over; while it is being sent, nothing
     * changes and this returns empty. Returns the row's id otherwise.
     */
    public Optional<Long> replace(String receiver, String key, String payload, Collection<String> fingerprints) {
        return store.write("queue a re-send for " + receiver, c -> {
            long now = store.now().toEpochMilli();
            Long id = null;
            boolean leased = false;
            try (PreparedStatement ps = c.prepareStatement("SELECT id, row_state, lease_token FROM outbox "
                    + "WHERE receiver = ? AND dedup_key = ? ORDER BY id DESC LIMIT 1")) {
                ps.setString(1, receiver);
                ps.setString(2, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        id = rs.getLong(1);
                        leased = "PENDING".equals(rs.getString(2)) && rs.getString(3) != null;
                    }
                }
            }
            if (leased) {
                return Optional.<Long>empty();
            }
            if (id == null) {
                return Optional.of(enqueue(c, receiver, key, payload, fingerprints, now));
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE outbox SET payload = ?, created_at = ?, "
                    + "attempts = 0, next_attempt_at = ?, last_error = NULL, row_state = 'PENDING', "
                    + "lease_token = NULL, lease_until = NULL, sent_at = NULL WHERE id = ?")) {
                ps.setString(1, payload);
                ps.setLong(2, now);
                ps.setLong(3, now);
                ps.setLong(4, id);
                ps.executeUpdate();
            }
            // the row now tells of what fires now
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM outbox_alert WHERE outbox_id = ?")) {
                ps.setLong(1, id);
                ps.executeUpdate();
            }
            mention(c, id, fingerprints);
            return Optional.of(id);
        });
    }

    /**
     * Leases up to {@code max} due rows (pending, their next attempt reached, no live lease), oldest due first,
     * for {@code lease}; each claim counts as an attempt. Only the oldest pending row of a receiver and key is
     * ever handed out, so a row waiting out its back-off holds back the later ones of its group: a receiver hears
     * a group's changes in the order they happened, a resolution never before its trigger.
     */
    public List<OutboxEntry> claim(int max, Duration lease) {
        if (max < 1 || lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("claim needs max >= 1 and a positive lease");
        }
        return store.write("claim outbox rows", c -> {
            long now = store.now().toEpochMilli();
            List<Long> ids = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT id FROM outbox o WHERE row_state = 'PENDING' "
                    + "AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?) "
                    + "AND NOT EXISTS (SELECT 1 FROM outbox e WHERE e.row_state = 'PENDING' "
                    + "AND e.receiver = o.receiver AND e.dedup_key = o.dedup_key AND e.id < o.id) "
                    + "ORDER BY next_attempt_at, id LIMIT ?")) {
                ps.setLong(1, now);
                ps.setLong(2, now);
                ps.setInt(3, max);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
            }
            List<OutboxEntry> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("UPDATE outbox SET lease_token = ?, lease_until = ?, "
                    + "attempts = attempts + 1 WHERE id = ?")) {
                for (long id : ids) {
                    ps.setString(1, UUID.randomUUID().toString());
                    ps.setLong(2, now + lease.toMillis());
                    ps.setLong(3, id);
                    ps.executeUpdate();
                }
            }
            for (long id : ids) {
                out.add(find(c, id).orElseThrow());
            }
            return out;
        });
    }

    /** Marks a claimed row sent; false when its lease was lost to another claim, so nothing changed. */
    public boolean complete(OutboxEntry claimed) {
        return store.write("complete outbox row " + claimed.id(), c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE outbox SET row_state = 'SENT', sent_at = ?, "
                    + "lease_token = NULL, lease_until = NULL WHERE " + HELD)) {
                ps.setLong(1, store.now().toEpochMilli());
                held(ps, 2, claimed);
                if (ps.executeUpdate() != 1) {
                    return false;
                }
            }
            attempted(c, claimed, DeliveryAttempt.Outcome.SENT, null);
            return true;
        });
    }

    /**
     * Records a failed attempt of a claimed row: it is due again after the back-off (not before
     * {@code retryAfter}, which may be null), or fails for good once it has used its attempts. Returns the row
     * as it now stands, or empty when the lease was lost.
     */
    public Optional<OutboxEntry> fail(OutboxEntry claimed, String error, Duration retryAfter) {
        if (!backoff.allowsAnother(claimed.attempts())) {
            return giveUp(claimed, error + " (gave up after " + claimed.attempts() + " attempts)");
        }
        Instant next = backoff.next(claimed.attempts(), store.now(), retryAfter);
        return settle(claimed, "PENDING", error, next);
    }

    /** Fails a claimed row for good, e.g. on a 4xx a retry cannot fix; empty when the lease was lost. */
    public Optional<OutboxEntry> giveUp(OutboxEntry claimed, String error) {
        return settle(claimed, "FAILED", error, null);
    }

    /** The row {@code id}. */
    public Optional<OutboxEntry> get(long id) {
        return store.read("read outbox row " + id, c -> find(c, id));
    }

    /** Rows in {@code state}, newest first, at most {@code limit}: what the delivery API shows. */
    public List<OutboxEntry> list(OutboxEntry.State state, int limit) {
        return store.read("list outbox rows", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM outbox WHERE row_state = ? "
                    + "ORDER BY id DESC LIMIT ?")) {
                ps.setString(1, state.name());
                ps.setInt(2, limit);
                return rows(ps);
            }
        });
    }

    /** How many rows are in {@code state}. */
    public long count(OutboxEntry.State state) {
        return store.read("count outbox rows", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM outbox WHERE row_state = ?")) {
                ps.setString(1, state.name());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    /** The rows that tell of the alert {@code fingerprint}, oldest first. */
    public List<OutboxEntry> mentioning(String fingerprint) {
        return store.read("list the notifications of alert " + fingerprint, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + JOINED_COLUMNS + " FROM outbox o "
                    + "JOIN outbox_alert m ON m.outbox_id = o.id WHERE m.fingerprint = ? ORDER BY o.id")) {
                ps.setString(1, fingerprint);
                return rows(ps);
            }
        });
    }

    /** Every attempt to send the rows {@code ids}, in the order they were made. */
    public List<DeliveryAttempt> attempts(Collection<Long> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return store.read("list delivery attempts", c -> {
            List<DeliveryAttempt> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT outbox_id, receiver, attempted_at, outcome, error "
                    + "FROM outbox_attempt WHERE outbox_id = ? ORDER BY id")) {
                for (long id : new TreeSet<>(ids)) {
                    ps.setLong(1, id);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            out.add(attempt(rs));
                        }
                    }
                }
            }
            out.sort(Comparator.comparing(DeliveryAttempt::at).thenComparingLong(DeliveryAttempt::row));
            return out;
        });
    }

    /** How many rows wait to be sent (or are being sent), per receiver that has any. */
    public Map<String, Long> pendingByReceiver() {
        return store.read("count pending outbox rows", c -> {
            Map<String, Long> out = new TreeMap<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT receiver, COUNT(*) FROM outbox "
                    + "WHERE row_state = 'PENDING' GROUP BY receiver");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getLong(2));
                }
            }
            return out;
        });
    }

    /** How the attempts to send to {@code receiver} have gone: its last success, last failure and failures since. */
    public ReceiverHealth health(String receiver) {
        return store.read("read the delivery health of " + receiver, c -> {
            Instant success = null;
            long successId = 0;
            try (PreparedStatement ps = c.prepareStatement("SELECT id, attempted_at FROM outbox_attempt "
                    + "WHERE receiver = ? AND outcome = 'SENT' ORDER BY id DESC LIMIT 1")) {
                ps.setString(1, receiver);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        successId = rs.getLong(1);
                        success = Instant.ofEpochMilli(rs.getLong(2));
                    }
                }
            }
            Instant failure = null;
            String error = null;
            int since = 0;
            try (PreparedStatement ps = c.prepareStatement("SELECT attempted_at, error FROM outbox_attempt "
                    + "WHERE receiver = ? AND outcome <> 'SENT' ORDER BY id DESC LIMIT 1")) {
                ps.setString(1, receiver);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        failure = Instant.ofEpochMilli(rs.getLong(1));
                        error = rs.getString(2);
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM outbox_attempt "
                    + "WHERE receiver = ? AND outcome <> 'SENT' AND id > ?")) {
                ps.setString(1, receiver);
                ps.setLong(2, successId);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    since = rs.getInt(1);
                }
            }
            return new ReceiverHealth(receiver, success, failure, error, since);
        });
    }

    /** When the earliest pending row may next be claimed, so a worker can sleep until then. */
    public Optional<Instant> nextDue() {
        return store.read("find the next due outbox row", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT MIN(GREATEST(next_attempt_at, "
                    + "COALESCE(lease_until, 0))) FROM outbox WHERE row_state = 'PENDING'")) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long at = rs.getLong(1);
                    return rs.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(at));
                }
            }
        });
    }

    /** Frees every lease: only called at open, when no other process can hold one. */
    void releaseLeases() {
        store.write("release outbox leases", c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE outbox SET lease_token = NULL, "
                    + "lease_until = NULL WHERE row_state = 'PENDING' AND lease_token IS NOT NULL")) {
                return ps.executeUpdate();
            }
        });
    }

    private static void held(PreparedStatement ps, int from, OutboxEntry claimed) throws SQLException {
        if (claimed.leaseToken() == null) {
            throw new IllegalArgumentException("outbox row " + claimed.id() + " was not claimed");
        }
        ps.setLong(from, claimed.id());
        ps.setString(from + 1, claimed.leaseToken());
    }

    private Optional<OutboxEntry> settle(OutboxEntry claimed, String state, String error, Instant next) {
        return store.write("record a failed attempt of outbox row " + claimed.id(), c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE outbox SET row_state = ?, last_error = ?, "
                    + "next_attempt_at = COALESCE(?, next_attempt_at), lease_token = NULL, lease_until = NULL "
                    + "WHERE " + HELD)) {
                ps.setString(1, state);
                ps.setString(2, error);
                if (next == null) {
                    ps.setNull(3, Types.BIGINT);
                } else {
                    ps.setLong(3, next.toEpochMilli());
                }
                held(ps, 4, claimed);
                if (ps.executeUpdate() != 1) {
                    return Optional.empty();
                }
            }
            attempted(c, claimed, state.equals("FAILED") ? DeliveryAttempt.Outcome.FAILED
                    : DeliveryAttempt.Outcome.RETRY, error);
            return find(c, claimed.id());
        });
    }

    private void attempted(Connection c, OutboxEntry claimed, DeliveryAttempt.Outcome outcome, String error)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox_attempt (outbox_id, receiver, "
                + "attempted_at, outcome, error) VALUES (?, ?, ?, ?, ?)")) {
            ps.setLong(1, claimed.id());
            ps.setString(2, claimed.receiver());
            ps.setLong(3, store.now().toEpochMilli());
            ps.setString(4, outcome.name());
            ps.setString(5, error);
            ps.executeUpdate();
        }
    }

    private static DeliveryAttempt attempt(ResultSet rs) throws SQLException {
        long row = rs.getLong(1);
        DeliveryAttempt.Outcome outcome;
        try {
            outcome = DeliveryAttempt.Outcome.valueOf(rs.getString(4));
        } catch (IllegalArgumentException e) {
            throw new StoreException("an attempt of outbox row " + row + " has an unknown outcome `"
                    + rs.getString(4) + "`", e);
        }
        return new DeliveryAttempt(row, rs.getString(2), Instant.ofEpochMilli(rs.getLong(3)), outcome,
                rs.getString(5));
    }

    private static Optional<OutboxEntry> find(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM outbox WHERE id = ?")) {
            ps.setLong(1, id);
            return rows(ps).stream().findFirst();
        }
    }

    private static List<OutboxEntry> rows(PreparedStatement ps) throws SQLException {
        List<OutboxEntry> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                long id = rs.getLong(1);
                OutboxEntry.State state;
                try {
                    state = OutboxEntry.State.valueOf(rs.getString(9));
                } catch (IllegalArgumentException e) {
                    throw new StoreException("outbox row " + id + " has an unknown state `" + rs.getString(9) + "`", e);
                }
                out.add(new OutboxEntry(id, rs.getString(2), rs.getString(3), rs.getString(4),
                        Instant.ofEpochMilli(rs.getLong(5)), rs.getInt(6), Instant.ofEpochMilli(rs.getLong(7)),
                        rs.getString(8), state, rs.getString(10), instant(rs, 11), instant(rs, 12)));
            }
        }
        return out;
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        long ms = rs.getLong(column);
        return rs.wasNull() ? null : Instant.ofEpochMilli(ms);
    }
}
