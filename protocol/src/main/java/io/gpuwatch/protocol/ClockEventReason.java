package io.gpuwatch.protocol;

import java.util.ArrayList;
import java.util.List;

/** NVML clock-event (throttle) reasons with their NVML bit values; names travel in upper snake case. */
public enum ClockEventReason {
    GPU_IDLE(0x1L),
    APPLICATIONS_CLOCKS_SETTING(0x2L),
    SW_POWER_CAP(0x4L),
    HW_SLOWDOWN(0x8L),
    SYNC_BOOST(0x10L),
    SW_THERMAL_SLOWDOWN(0x20L),
    HW_THERMAL_SLOWDOWN(0x40L),
    HW_POWER_BRAKE_SLOWDOWN(0x80L),
    DISPLAY_CLOCK_SETTING(0x100L);

    private final long bit;

    ClockEventReason(long bit) {
        this.bit = bit;
    }

    /** The bit NVML uses for this reason in {@code nvmlDeviceGetCurrentClocksEventReasons}. */
    public long bit() {
        return bit;
    }

    /** The reason of this name, or null when the name is not one of NVML's. */
    public static ClockEventReason byName(String name) {
        for (ClockEventReason r : values()) {
            if (r.name().equals(name)) {
                return r;
            }
        }
        return null;
    }

    /** The names of the reasons set in a mask, in bit order; unknown bits are ignored. */
    public static List<String> names(long mask) {
        List<String> out = new ArrayList<>();
        for (ClockEventReason r : values()) {
            if ((mask & r.bit) != 0) {
                out.add(r.name());
            }
        }
        return out;
    }
}
