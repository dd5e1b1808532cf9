package io.gpuwatch.probe.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.gpuwatch.probe.nvml.NvmlLibrary.GpmMetricsGet;

import java.util.Arrays;

/**
 * SM activity, SM occupancy, tensor activity and DRAM bandwidth of one card from NVML GPM (Hopper and later).
 * NVML computes them between two samples, so each reading covers the time since the previous one: the first
 * call only takes a sample. Used by one poller thread; {@link #close()} frees the samples.
 */
final class GpmSampler {
    /** {@code NVML_GPM_METRIC_*}: SM util, SM occupancy, any tensor, DRAM bandwidth; all 0..100 %. */
    private static final int[] METRICS = {2, 3, 5, 10};

    private final Nvml nvml;
    private final NvmlDevice device;
    /** The {@code nvmlGpmMetricsGet_t} request, 13 KB of native memory at {@link GpmMetricsGet}'s offsets. */
    private final Memory request = new Memory(GpmMetricsGet.SIZE);
    private Pointer previous;
    private Pointer current;
    private boolean hasPrevious;

    private GpmSampler(Nvml nvml, NvmlDevice device, Pointer first, Pointer second) {
        this.nvml = nvml;
        this.device = device;
        this.previous = first;
        this.current = second;
        // zeroed once, version 1 and the metric ids set once; each call writes the samples and reads back only
        // the metrics asked for
        request.clear();
        request.setInt(0, 1);
        request.setInt(GpmMetricsGet.OFFSET_NUM_METRICS, METRICS.length);
        for (int i = 0; i < METRICS.length; i++) {
            request.setInt(GpmMetricsGet.OFFSET_METRICS + (long) i * GpmMetricsGet.METRIC_SIZE, METRICS[i]);
        }
    }

    /** A sampler with its two sample buffers; NOT_SUPPORTED where the card has no GPM. */
    static NvmlResult<GpmSampler> open(Nvml nvml, NvmlDevice device) {
        return nvml.gpmSupported(device).then(supported -> {
            if (!supported) {
                return NvmlResult.failed(NvmlReturn.NOT_SUPPORTED, "nvmlGpmQueryDeviceSupport",
                        "the card has no GPM");
            }
            return nvml.gpmSampleAlloc().then(first -> {
                NvmlResult<Pointer> second = nvml.gpmSampleAlloc();
                if (second.error() != null) {
                    nvml.gpmSampleFree(first);
                }
                return second.map(s -> new GpmSampler(nvml, device, first, s));
            });
        });
    }

    /**
     * Takes a sample and answers SM active, SM occupancy, tensor active and DRAM active as ratios 0..1 since the
     * previous one; NaN where NVML gave no value or there is no previous sample.
     */
    NvmlResult<double[]> next() {
        NvmlResult<Void> taken = nvml.gpmSampleGet(device, current);
        if (taken.error() != null) {
            hasPrevious = false;
            return new NvmlResult.Failed<>(taken.error());
        }
        double[] ratios = new double[METRICS.length];
        Arrays.fill(ratios, Double.NaN);
        NvmlResult<double[]> out = NvmlResult.ok(ratios);
        if (hasPrevious) {
            out = metrics(ratios);
        }
        Pointer swap = previous;
        previous = current;
        current = swap;
        hasPrevious = true;
        return out;
    }

    private NvmlResult<double[]> metrics(double[] ratios) {
        request.setPointer(GpmMetricsGet.OFFSET_SAMPLE1, previous);
        request.setPointer(GpmMetricsGet.OFFSET_SAMPLE2, current);
        for (int i = 0; i < METRICS.length; i++) {
            // NVML may have written its status and value into every entry: reset them with the ids
            long at = GpmMetricsGet.OFFSET_METRICS + (long) i * GpmMetricsGet.METRIC_SIZE;
            request.setInt(at, METRICS[i]);
        }
        return nvml.gpmMetricsGet(request).map(v -> {
            for (int i = 0; i < METRICS.length; i++) {
                long at = GpmMetricsGet.OFFSET_METRICS + (long) i * GpmMetricsGet.METRIC_SIZE;
                if (request.getInt(at + GpmMetricsGet.METRIC_OFFSET_RETURN) == NvmlReturn.SUCCESS.code()) {
                    ratios[i] = request.getDouble(at + GpmMetricsGet.METRIC_OFFSET_VALUE) / 100;
                }
            }
            return ratios;
        });
    }

    void close() {
        nvml.gpmSampleFree(previous);
        nvml.gpmSampleFree(current);
    }
}
