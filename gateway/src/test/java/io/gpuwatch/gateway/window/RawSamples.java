package io.gpuwatch.gateway.window;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.LongToDoubleFunction;

/** Brute-force reference for the window functions: every accepted sample by slot, evaluated by scanning. */
final class RawSamples {
    private final long resolutionMs;
    private final NavigableMap<Long, Float> bySlot = new TreeMap<>();

    RawSamples(long resolutionMs) {
        this.resolutionMs = resolutionMs;
    }

    void put(long tsMs, double value) {
        float v = (float) value;
        if (Float.isFinite(v)) {
            bySlot.put(Math.floorDiv(tsMs, resolutionMs), v);
        }
    }

    private NavigableMap<Long, Float> range(long firstSlot, long lastSlot) {
        return firstSlot > lastSlot ? new TreeMap<>() : bySlot.subMap(firstSlot, true, lastSlot, true);
    }

    double count(long firstSlot, long lastSlot) {
        return range(firstSlot, lastSlot).size();
    }

    double sum(long firstSlot, long lastSlot) {
        var r = range(firstSlot, lastSlot);
        return r.isEmpty() ? Double.NaN : r.values().stream().mapToDouble(Float::doubleValue).sum();
    }

    double avg(long firstSlot, long lastSlot) {
        return sum(firstSlot, lastSlot) / count(firstSlot, lastSlot);
    }

    double min(long firstSlot, long lastSlot) {
        return range(firstSlot, lastSlot).values().stream().mapToDouble(Float::doubleValue).min().orElse(Double.NaN);
    }

    double max(long firstSlot, long lastSlot) {
        return range(firstSlot, lastSlot).values().stream().mapToDouble(Float::doubleValue).max().orElse(Double.NaN);
    }

    /** Each sample's rise from its predecessor (a drop = reset to 0), when the predecessor is within lookback. */
    double increase(long firstSlot, long lastSlot) {
        var r = range(firstSlot, lastSlot);
        if (r.isEmpty()) {
            return Double.NaN;
        }
        long lookbackSlots = MetricWindow.LOOKBACK_MS / resolutionMs;
        double inc = 0;
        for (Map.Entry<Long, Float> e : r.entrySet()) {
            Map.Entry<Long, Float> prev = bySlot.lowerEntry(e.getKey());
            if (prev != null && e.getKey() - prev.getKey() <= lookbackSlots) {
                double v = e.getValue();
                double p = prev.getValue();
                inc += v >= p ? v - p : v;
            }
        }
        return inc;
    }

    /** Ordinary least squares of value against {@code x(slot)} (seconds). */
    double slope(long firstSlot, long lastSlot, LongToDoubleFunction x) {
        var r = range(firstSlot, lastSlot);
        if (r.size() < 2) {
            return Double.NaN;
        }
        double mx = r.keySet().stream().mapToDouble(x::applyAsDouble).average().orElseThrow();
        double my = r.values().stream().mapToDouble(Float::doubleValue).average().orElseThrow();
        double sxx = 0;
        double sxy = 0;
        for (Map.Entry<Long, Float> e : r.entrySet()) {
            double dx = x.applyAsDouble(e.getKey()) - mx;
            sxx += dx * dx;
            sxy += dx * (e.getValue() - my);
        }
        return sxx == 0 ? Double.NaN : sxy / sxx;
    }
}
