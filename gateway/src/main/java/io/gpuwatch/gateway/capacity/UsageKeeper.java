package io.gpuwatch.gateway.capacity;

import io.gpuwatch.gateway.store.AsyncStore;
import io.gpuwatch.gateway.store.QueueRow;
import io.gpuwatch.gateway.store.UsageRow;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Keeps the usage history: samples the live state on the gateway's event loop once per resolution (by the
 * injected clock), appends the rows on the store's own thread ten samples at a time, and deletes rows older than
 * the retention once an hour. Reports are built on the store's thread too, from the rows stored and those not yet
 * written, never on the event loop. Writing ten minutes per transaction rather than one halves the file: H2
 * keeps the pages each commit replaces until it compacts (docs/performance.md, Usage history); a kill loses at most
 * the last ten minutes of history.
 */
public final class UsageKeeper {
    private static final Logger LOG = Logger.getLogger(UsageKeeper.class.getName());
    private static final long PRUNE_EVERY_MS = 3_600_000L;
    /** Samples written per transaction. */
    static final int WRITE_EVERY = 10;

    /** How finely and how long the history is kept. */
    public record Settings(long resolutionMs, long retentionMs) {
        /** One-minute rows for 30 days. */
        public static final Settings DEFAULTS = new Settings(60_000L, 30 * 86_400_000L);

        public Settings {
            if (resolutionMs < 1_000) {
                throw new IllegalArgumentException("the history's resolution must be at least 1s, got "
                        + resolutionMs + " ms");
            }
            if (retentionMs < resolutionMs) {
                throw new IllegalArgumentException("the history's retention must be at least its resolution");
            }
        }
    }

    private final Vertx vertx;
    private final AsyncStore store;
    private final UsageSampler sampler;
    private final InstantSource clock;
    private final Settings settings;
    private final Supplier<String> currency;
    private long timer = -1;
    private long prunedAt = Long.MIN_VALUE;
    /** Rows sampled but not yet handed to the store. */
    private final List<UsageRow> pendingUsage = new ArrayList<>();
    private final List<QueueRow> pendingQueues = new ArrayList<>();
    private int pendingSamples;

    /** {@code currency} names what the pricing in force prices in, for the reports. */
    public UsageKeeper(Vertx vertx, AsyncStore store, UsageSampler sampler, InstantSource clock, Settings settings,
                       Supplier<String> currency) {
        this.vertx = Objects.requireNonNull(vertx, "vertx");
        this.store = Objects.requireNonNull(store, "store");
        this.sampler = Objects.requireNonNull(sampler, "sampler");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.currency = Objects.requireNonNull(currency, "currency");
    }

    public Settings settings() {
        return settings;
    }

    /** Samples now (starting the clock) and then once per resolution; call on the gateway's event loop. */
    public void start() {
        sampleNow();
        timer = vertx.setPeriodic(settings.resolutionMs(), id -> sampleNow());
    }

    /** Stops sampling and writes the rows not yet written; the future completes once they are on disk. */
    public Future<Void> stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
        return flush(false, clock.millis());
    }

    /**
     * Samples the live state now, on the caller's thread (the event loop, which owns it); every
     * {@link #WRITE_EVERY} samples appends the rows on the store's thread, pruning first when an hour has passed.
     * The future completes once this sample's rows are on disk, or at once while they wait for the next write.
     */
    public Future<Void> sampleNow() {
        long at = clock.millis();
        UsageSampler.Minute minute = sampler.sample(at);
        pendingUsage.addAll(minute.usage());
        pendingQueues.addAll(minute.queues());
        if (!minute.usage().isEmpty() || !minute.queues().isEmpty()) {
            pendingSamples++;
        }
        boolean prune = prunedAt == Long.MIN_VALUE || at - prunedAt >= PRUNE_EVERY_MS;
        if (pendingSamples < WRITE_EVERY && !prune) {
            return Future.succeededFuture();
        }
        return flush(prune, at);
    }

    private Future<Void> flush(boolean prune, long at) {
        if (prune) {
            prunedAt = at;
        }
        if (pendingUsage.isEmpty() && pendingQueues.isEmpty() && !prune) {
            return Future.succeededFuture();
        }
        List<UsageRow> usage = List.copyOf(pendingUsage);
        List<QueueRow> queues = List.copyOf(pendingQueues);
        pendingUsage.clear();
        pendingQueues.clear();
        pendingSamples = 0;
        return store.run(s -> {
            if (prune) {
                s.usageHistory().prune(at - settings.retentionMs());
            }
            s.usageHistory().add(usage, queues);
            return (Void) null;
        }).onFailure(e -> LOG.warning("the usage history could not be written (" + e.getMessage() + "); the capacity "
                + "report will miss " + usage.size() + " rows"));
    }

    /** The capacity report over the {@code sinceMs} up to now, built on the store's thread. */
    public Future<CapacityReport> report(long sinceMs) {
        long to = clock.millis();
        long from = to - sinceMs;
        String cur = currency.get();
        List<UsageRow> usage = List.copyOf(pendingUsage);
        List<QueueRow> queues = List.copyOf(pendingQueues);
        return store.run(s -> {
            CapacityReport.Builder b = new CapacityReport.Builder(from, to, cur);
            s.usageHistory().scan(from, to, b::add);
            usage.forEach(b::add);
            s.usageHistory().queues(from, to).forEach(b::add);
            queues.forEach(b::add);
            return b.build();
        });
    }
}
