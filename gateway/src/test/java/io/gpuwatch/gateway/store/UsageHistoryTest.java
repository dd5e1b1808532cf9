package io.gpuwatch.gateway.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The usage history's rows come back as written (unknowns as NaN), by window, and age out when pruned. */
class UsageHistoryTest {
    private static final long T0 = Instant.parse("2026-01-05T00:00:00Z").toEpochMilli();
    private static final long MIN = 60_000L;

    @TempDir
    Path dir;

    private static UsageRow row(long at, String task) {
        return new UsageRow(at, MIN, task, "ana", "chat", "gpu", "training", "owned", "H100 SXM", 4, 3, 1, 1, 8,
                3.2e11, Double.NaN, 4.4, 1.5e15, 3.9576e15, 0);
    }

    @Test
    void rowsComeBackByWindowAndAgeOut() {
        try (Store store = Store.open(dir.resolve("gateway"), new TestClock(Instant.ofEpochMilli(T0)),
                Backoff.standard())) {
            UsageHistory h = store.usageHistory();
            QueueRow q1 = new QueueRow(T0 + MIN, MIN, "gpu", 2, 16, 600, 900, 12, 16);
            QueueRow q2 = new QueueRow(T0 + 2 * MIN, MIN, "gpu", Double.NaN, 0, Double.NaN, Double.NaN, 12, 16);
            h.add(List.of(row(T0 + MIN, "a"), row(T0 + MIN, "b")), List.of(q1));
            h.add(List.of(row(T0 + 2 * MIN, "a")), List.of(q2));
            h.add(List.of(new UsageRow(T0 + 3 * MIN, MIN, "c", null, null, null, null, null, null, 0, 0, 0, 0, 2, 0,
                    Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0)), List.of());

            List<UsageRow> all = new ArrayList<>();
            h.scan(T0, T0 + 3 * MIN, all::add);
            assertEquals(List.of(row(T0 + MIN, "a"), row(T0 + MIN, "b"), row(T0 + 2 * MIN, "a"),
                    new UsageRow(T0 + 3 * MIN, MIN, "c", null, null, null, null, null, null, 0, 0, 0, 0, 2, 0,
                            Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0)), all);
            List<UsageRow> later = new ArrayList<>();
            h.scan(T0 + MIN, T0 + 2 * MIN, later::add);
            assertEquals(List.of(row(T0 + 2 * MIN, "a")), later, "the window is (from, to]");
            assertEquals(List.of(q1, q2), h.queues(T0, T0 + 10 * MIN));

            assertEquals(3, h.prune(T0 + 2 * MIN), "the two rows and the queue row of the first minute");
            assertArrayEquals(new long[] {2, 1}, h.count());
        }
    }
}
