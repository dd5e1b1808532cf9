package io.gpuwatch.protocol;

/** Application-layer readings of one task (metrics of {@link Metric.Source#APP}). */
public record App(long seq, long ts, String task, String business, String source, MetricValues values)
        implements Frame {
    @Override
    public String type() {
        return "app";
    }
}
