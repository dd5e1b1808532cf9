package io.gpuwatch.probe.app;

import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;

import java.util.Arrays;

/**
 * Turns the consecutive scrapes of one target into app frames: the first gives gauges and counter totals, each
 * later one also rates and quantiles over the time since the one before. Not thread-safe: one caller at a time.
 */
public final class TargetTracker {
    private final ScrapeTarget target;
    private Exposition prev;
    private long prevTs;
    private double[] totals = new double[Metric.count()];

    public TargetTracker(ScrapeTarget target) {
        this.target = target;
        Arrays.fill(totals, Double.NaN);
    }

    public ScrapeTarget target() {
        return target;
    }

    /**
     * The frame for a scrape taken at {@code tsMs} (seq 0: the uplink numbers it), or null when the scrape holds
     * none of the server's metrics; such a scrape is not remembered.
     */
    public App observe(Exposition scrape, long tsMs) {
        Window w = new Window(prev, scrape, prev == null ? 0 : (tsMs - prevTs) / 1000.0, target.filter(),
                target.server().replicaLabels(), totals);
        // series that name no model (vllm:cache_config_info) do not show that the model is served
        if (!w.mentions(target.server().prefix(), target.modelSeries())) {
            return null;
        }
        MetricValues.Builder b = MetricValues.builder();
        target.server().map(w, b);
        prev = scrape;
        prevTs = tsMs;
        totals = w.totals();
        return new App(0, tsMs, target.task(), target.business(), target.server().source(), valid(b.build()));
    }

    /** Drops readings the protocol would reject (negative, infinite, a ratio above 1) rather than lose the frame. */
    private static MetricValues valid(MetricValues v) {
        MetricValues.Builder b = MetricValues.builder();
        for (int i = 0; i < Metric.count(); i++) {
            Metric m = Metric.of(i);
            double x = v.get(m);
            if (Double.isFinite(x) && x >= 0 && (m != Metric.KV_CACHE_USAGE || x <= 1)) {
                b.set(m, x);
            }
        }
        return b.build();
    }
}
