package io.gpuwatch.gateway.capacity;

import io.gpuwatch.gateway.store.AsyncStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.time.InstantSource;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Keeps the usage history: samples the live state on the gateway's event loop once per resolution (by the
 * injected clock), appends the rows on the store's own thread, and deletes rows older than the retention once an
 * hour. Reports are built on the store's thread too, from the rows, never on the event loop.
 */
public final class UsageKeeper {
    private static final Logger LOG = Logger.getLogger(UsageKeeper.class.getName());
    private static final long PRUNE_EVERY_MS = 3_600_000L;

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

    /** Stops sampling; rows already asked for are still written. */
    public void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
    }

    /**
     * Samples the live state now, on the caller's thread (the event loop, which owns it), and appends the rows on
     * the store's thread, pruning first when an hour has passed; the future completes once they are on disk.
     */
    public Future<Void> sampleNow() {
        long at = clock.millis();
        UsageSampler.Minute minute = sampler.sample(at);
        boolean prune = at - prunedAt >= PRUNE_EVERY_MS;
        if (prune) {
            prunedAt = at;
        }
        if (minute.usage().isEmpty() && minute.queues().isEmpty() && !prune) {
            return Future.succeededFuture();
        }
        return store.run(s -> {
            if (prune) {
                s.usageHistory().prune(at - settings.retentionMs());
            }
            s.usageHistory().add(minute.usage(), minute.queues());
            return (Void) null;
        }).onFailure(e -> LOG.warning("the usage history could not be written (" + e.getMessage() + "); the capacity "
                + "report will miss this minute"));
    }

    /** The capacity report over the {@code sinceMs} up to now, built on the store's thread. */
    public Future<CapacityReport> report(long sinceMs) {
        long to = clock.millis();
        long from = to - sinceMs;
        String cur = currency.get();
        return store.run(s -> {
            CapacityReport.Builder b = new CapacityReport.Builder(from, to, cur);
            s.usageHistory().scan(from, to, b::add);
            s.usageHistory().queues(from, to).forEach(b::add);
            return b.build();
        });
    }
}
