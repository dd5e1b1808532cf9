package io.gpuwatch.bench;

import io.gpuwatch.gateway.capacity.CapacityReport;
import io.gpuwatch.gateway.store.Backoff;
import io.gpuwatch.gateway.store.QueueRow;
import io.gpuwatch.gateway.store.Store;
import io.gpuwatch.gateway.store.UsageRow;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * What the usage history costs on disk and in time: {@code days} of one-minute rows of {@code cards} cards in
 * tasks of {@code perTask} cards each (one row per task a minute, as the sampler writes for tasks on one pool and
 * model) and two queues, written {@code minutesPerWrite} minutes per transaction into a fresh store; then
 * the file's size per card per day, and how long a report over the whole span takes to build.
 *
 * <p>{@code java -cp bench/target/benchmarks.jar io.gpuwatch.bench.HistorySize CARDS PER_TASK DAYS MINUTES_PER_WRITE}
 */
public final class HistorySize {
    private static final long MIN = 60_000L;
    private static final long T0 = Instant.parse("2026-01-05T00:00:00Z").toEpochMilli();

    private HistorySize() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 4) {
            System.err.println("usage: HistorySize CARDS PER_TASK DAYS MINUTES_PER_WRITE");
            System.exit(2);
        }
        int cards = Integer.parseInt(args[0]);
        int perTask = Integer.parseInt(args[1]);
        int days = Integer.parseInt(args[2]);
        int perWrite = Integer.parseInt(args[3]);
        int tasks = Math.max(1, cards / perTask);
        Path dir = Files.createTempDirectory("gpuwatch-history");
        SplittableRandom random = new SplittableRandom(7);
        long minutes = days * 1440L;
        long writeNanos = 0;
        try (Store store = Store.open(dir.resolve("gpuwatch"), () -> Instant.ofEpochMilli(T0), Backoff.standard())) {
            long empty = size(dir);
            List<UsageRow> rows = new ArrayList<>();
            List<QueueRow> queues = new ArrayList<>();
            for (long m = 1; m <= minutes; m++) {
                long at = T0 + m * MIN;
                for (int t = 0; t < tasks; t++) {
                    int idle = random.nextInt(10) == 0 ? 1 : 0;
                    rows.add(new UsageRow(at, MIN, "train-llama-" + (1000 + t), "team-" + (t % 40),
                            "business-" + (t % 12), t % 2 == 0 ? "training" : "inference", "training",
                            t % 3 == 0 ? "cloud-on-demand" : "owned", "H100 SXM", perTask, perTask - idle, idle, 0,
                            perTask, perTask * 80e9, perTask * random.nextDouble(40e9, 80e9), perTask * 3.5,
                            random.nextDouble(1e14, 4e14) * perTask, 989.4e12 * perTask,
                            random.nextDouble(1000, 9000)));
                }
                queues.add(new QueueRow(at, MIN, "training", random.nextInt(5), 8 * random.nextInt(5),
                        random.nextDouble(30, 900), random.nextDouble(60, 3600), cards * 0.8, cards));
                queues.add(new QueueRow(at, MIN, "inference", 0, 0, 0, 0, cards * 0.2, cards));
                if (m % perWrite == 0 || m == minutes) {
                    long start = System.nanoTime();
                    store.usageHistory().add(rows, queues);
                    writeNanos += System.nanoTime() - start;
                    rows.clear();
                    queues.clear();
                }
            }
            long open = size(dir) - empty;
            long reportStart = System.nanoTime();
            CapacityReport.Builder b = new CapacityReport.Builder(T0, T0 + minutes * MIN, "USD");
            store.usageHistory().scan(T0, T0 + minutes * MIN, b::add);
            store.usageHistory().queues(T0, T0 + minutes * MIN).forEach(b::add);
            CapacityReport report = b.build();
            double reportS = (System.nanoTime() - reportStart) / 1e9;
            store.close();
            long closed = size(dir) - empty;
            long compacted = compact(dir.resolve("gpuwatch")) - empty;
            System.out.printf("%d cards in %d tasks of %d, %d days: %,d rows%n", cards, tasks, perTask, days,
                    minutes * tasks);
            System.out.printf("file growth: %,d B open, %,d B after close: %,.0f B per card per day (%,.0f B per "
                    + "row)%n", open, closed, closed / (double) cards / days, closed / (double) (minutes * tasks));
            System.out.printf("compacted (SHUTDOWN COMPACT): %,d B: %,.0f B per card per day (%,.0f B per row)%n",
                    compacted, compacted / (double) cards / days, compacted / (double) (minutes * tasks));
            System.out.printf("write: %.2f ms per transaction of %d minutes (mean)%n",
                    writeNanos / 1e6 / Math.ceil((double) minutes / perWrite), perWrite);
            System.out.printf("report over the %d days: %.2f s (%,.0f card-hours)%n", days, reportS,
                    report.totals().cardHours());
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted((a, c) -> c.compareTo(a)).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The live data without the space old chunks leave behind: what the file shrinks to when H2 compacts it. */
    private static long compact(Path base) throws IOException {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("user", "sa");
        p.setProperty("password", "");
        try (java.sql.Connection c = org.h2.Driver.load().connect("jdbc:h2:file:" + base, p);
             java.sql.Statement st = c.createStatement()) {
            st.execute("SHUTDOWN COMPACT");
        } catch (java.sql.SQLException e) {
            throw new IOException(e);
        }
        return size(base.getParent());
    }

    private static long size(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.mapToLong(p -> p.toFile().length()).sum();
        }
    }
}
