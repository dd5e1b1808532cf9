package io.gpuwatch.gateway.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The downsampled usage history the capacity report reads: one row per task, pool and GPU model per sampling
 * interval, and one per scheduler queue, kept for the retention the gateway is given and pruned by age.
 */
public final class UsageHistory {
    private final Store store;

    UsageHistory(Store store) {
        this.store = store;
    }

    /** Appends one sampling instant's rows. */
    public void add(List<UsageRow> usage, List<QueueRow> queues) {
        if (usage.isEmpty() && queues.isEmpty()) {
            return;
        }
        store.write("append " + usage.size() + " usage and " + queues.size() + " queue rows to the history", c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO usage_minute (at, span_ms, task, owner, "
                    + "business, queue_name, workload, pool, card_model, held, busy, idle, reclaimable, requested, "
                    + "mem_requested, mem_used, cost_per_hour, achieved_flops, peak_flops, tokens_per_sec) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                for (UsageRow r : usage) {
                    ps.setLong(1, r.at());
                    ps.setLong(2, r.spanMs());
                    ps.setString(3, r.task());
                    ps.setString(4, r.owner());
                    ps.setString(5, r.business());
                    ps.setString(6, r.queue());
                    ps.setString(7, r.workload());
                    ps.setString(8, r.pool());
                    ps.setString(9, r.model());
                    ps.setInt(10, r.held());
                    ps.setInt(11, r.busy());
                    ps.setInt(12, r.idle());
                    ps.setInt(13, r.reclaimable());
                    setDouble(ps, 14, r.requestedCards());
                    setDouble(ps, 15, r.memRequestedBytes());
                    setDouble(ps, 16, r.memUsedBytes());
                    setDouble(ps, 17, r.costPerHour());
                    setDouble(ps, 18, r.achievedFlops());
                    setDouble(ps, 19, r.peakFlops());
                    setDouble(ps, 20, r.tokensPerSec());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO queue_minute (at, span_ms, queue_name, "
                    + "pending, pending_cards, wait_p50_s, wait_max_s, cards_allocated, cards_total) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                for (QueueRow q : queues) {
                    ps.setLong(1, q.at());
                    ps.setLong(2, q.spanMs());
                    ps.setString(3, q.queue());
                    setDouble(ps, 4, q.pending());
                    setDouble(ps, 5, q.pendingCards());
                    setDouble(ps, 6, q.waitP50s());
                    setDouble(ps, 7, q.waitMaxS());
                    setDouble(ps, 8, q.cardsAllocated());
                    setDouble(ps, 9, q.cardsTotal());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return null;
        });
    }

    /**
     * Hands every usage row of an instant in {@code (from, to]} to {@code sink}, oldest first, without holding
     * them all: a month of a large fleet is millions of rows, the report only sums them.
     */
    public void scan(long from, long to, Consumer<UsageRow> sink) {
        store.read("read the usage history", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT at, span_ms, task, owner, business, queue_name, "
                    + "workload, pool, card_model, held, busy, idle, reclaimable, requested, mem_requested, mem_used, "
                    + "cost_per_hour, achieved_flops, peak_flops, tokens_per_sec FROM usage_minute "
                    + "WHERE at > ? AND at <= ? ORDER BY at")) {
                ps.setLong(1, from);
                ps.setLong(2, to);
                ps.setFetchSize(1000);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        sink.accept(new UsageRow(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4),
                                rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9),
                                rs.getInt(10), rs.getInt(11), rs.getInt(12), rs.getInt(13), getDouble(rs, 14),
                                getDouble(rs, 15), getDouble(rs, 16), getDouble(rs, 17), getDouble(rs, 18),
                                getDouble(rs, 19), getDouble(rs, 20)));
                    }
                }
            }
            return null;
        });
    }

    /** The queue rows of instants in {@code (from, to]}, oldest first (a few per sampling instant). */
    public List<QueueRow> queues(long from, long to) {
        return store.read("read the queue history", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT at, span_ms, queue_name, pending, pending_cards, "
                    + "wait_p50_s, wait_max_s, cards_allocated, cards_total FROM queue_minute "
                    + "WHERE at > ? AND at <= ? ORDER BY at")) {
                ps.setLong(1, from);
                ps.setLong(2, to);
                List<QueueRow> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new QueueRow(rs.getLong(1), rs.getLong(2), rs.getString(3), getDouble(rs, 4),
                                getDouble(rs, 5), getDouble(rs, 6), getDouble(rs, 7), getDouble(rs, 8),
                                getDouble(rs, 9)));
                    }
                }
                return out;
            }
        });
    }

    /** Deletes the rows of instants before {@code before}; returns how many went. */
    public int prune(long before) {
        return store.write("prune the usage history", c -> {
            int n = 0;
            for (String table : List.of("usage_minute", "queue_minute")) {
                try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE at < ?")) {
                    ps.setLong(1, before);
                    n += ps.executeUpdate();
                }
            }
            return n;
        });
    }

    /** How many usage rows there are, queue rows apart. */
    public long[] count() {
        return store.read("count the usage history", c -> {
            long[] out = new long[2];
            int i = 0;
            for (String table : List.of("usage_minute", "queue_minute")) {
                try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table);
                     ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    out[i++] = rs.getLong(1);
                }
            }
            return out;
        });
    }

    private static void setDouble(PreparedStatement ps, int i, double v) throws SQLException {
        if (Double.isNaN(v)) {
            ps.setNull(i, java.sql.Types.DOUBLE);
        } else {
            ps.setDouble(i, v);
        }
    }

    private static double getDouble(ResultSet rs, int i) throws SQLException {
        double v = rs.getDouble(i);
        return rs.wasNull() ? Double.NaN : v;
    }
}
