package io.gpuwatch.probe.sim;

/**
 * What normally runs on a card and how it loads it. Ratios tie the secondary readings to utilisation: memory
 * bandwidth share, SM activity (GPM), tensor-pipe share, power intensity and PCIe traffic per utilisation point.
 *
 * @param utilSwing amplitude of the slow request-load wave of inference services; 0 for training
 * @param periodMs period of that wave
 * @param phase phase of that wave, shared by the shards of one service
 * @param memFraction share of the card's memory the process settles at
 */
record Workload(String task, String owner, String business, double utilBase, double utilSwing,
                long periodMs, double phase, double memFraction, double memRatio, double intensity, double smRatio,
                double occupancyRatio, double tensorRatio, double pcieKBpsPerPct, long basePid) {
    /** Whether this is an inference service (its load follows requests), which reports application readings. */
    boolean serves() {
        return utilSwing > 0;
    }
}
