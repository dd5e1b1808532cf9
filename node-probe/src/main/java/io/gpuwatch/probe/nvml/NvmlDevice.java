package io.gpuwatch.probe.nvml;

import com.sun.jna.Pointer;

/** A card's NVML handle ({@code nvmlDevice_t}) and the NVML index it was opened by. */
public record NvmlDevice(int index, Pointer handle) {
}
