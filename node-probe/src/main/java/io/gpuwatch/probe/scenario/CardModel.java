package io.gpuwatch.probe.scenario;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The facts of a card model that the simulation needs: what NVML would report as static facts, plus the idle
 * figures and the thermal slowdown threshold that shape its dynamics.
 *
 * @param gpm whether the model has NVML GPM (Hopper and later), which gives smActive, tensorActive and the like
 * @param nvlinks NVLink links per card; 0 means the card has none and the NVLink readings are absent
 */
public record CardModel(String name, long memTotalBytes, double powerLimitW, double idlePowerW, int maxSmClockMHz,
                        int idleSmClockMHz, int memClockMHz, int slowdownTempC, int pcieGen, int pcieWidth,
                        int nvlinks, boolean gpm) {

    /** The model a scenario gets when it names none. */
    public static final CardModel H100_SXM = new CardModel("NVIDIA H100 80GB HBM3", 85_520_809_984L, 700, 72,
            1980, 345, 2619, 87, 5, 16, 18, true);

    /** Models a scenario may name, with figures from their data sheets and nvidia-smi. */
    public static final List<CardModel> KNOWN = List.of(
            H100_SXM,
            new CardModel("NVIDIA H200", 150_754_820_096L, 700, 76, 1980, 345, 3201, 87, 5, 16, 18, true),
            new CardModel("NVIDIA A100-SXM4-80GB", 85_899_345_920L, 400, 55, 1410, 210, 1593, 90, 4, 16, 12, false),
            new CardModel("NVIDIA L40S", 48_305_799_168L, 350, 34, 2520, 210, 9001, 89, 4, 16, 0, false));

    /** The known model of this name, or null. */
    public static CardModel byName(String name) {
        return KNOWN.stream().filter(m -> m.name.equals(name)).findFirst().orElse(null);
    }

    /** The known model names, quoted and comma-separated, for error messages. */
    public static String knownNames() {
        return KNOWN.stream().map(m -> "'" + m.name + "'").collect(Collectors.joining(", "));
    }
}
