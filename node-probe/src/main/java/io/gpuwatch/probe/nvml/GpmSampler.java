package io.gpuwatch.probe.nvml;

import com.sun.jna.Pointer;

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
    private final NvmlLibrary.GpmMetricsGet request = new NvmlLibrary.GpmMetricsGet();
    private Pointer previous;
    private Pointer current;
    private boolean hasPrevious;

    private GpmSampler(Nvml nvml, NvmlDevice device, Pointer first, Pointer second) {
        this.nvml = nvml;
        this.device = device;
        this.previous = first;
        this.current = second;
        // the request is 13 KB: write it whole once, then only the fields that change, and read back only
        // the metrics asked for
        request.setAutoSynch(false);
        request.write();
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
        request.numMetrics = METRICS.length;
        request.sample1 = previous;
        request.sample2 = current;
        request.writeField("version");
        request.writeField("numMetrics");
        request.writeField("sample1");
        request.writeField("sample2");
        for (int i = 0; i < METRICS.length; i++) {
            request.metrics[i].metricId = METRICS[i];
            request.metrics[i].writeField("metricId");
        }
        return nvml.gpmMetricsGet(request).map(v -> {
            for (int i = 0; i < METRICS.length; i++) {
                NvmlLibrary.GpmMetric m = request.metrics[i];
                m.read();
                if (m.nvmlReturn == NvmlReturn.SUCCESS.code()) {
                    ratios[i] = m.value / 100;
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
