package io.gpuwatch.probe.nvml;

/**
 * A failed NVML call: the code, the function that returned it and NVML's own words for it
 * ({@code nvmlErrorString}, or why the library could not be used at all).
 */
public record NvmlError(NvmlReturn code, String function, String message) {
    @Override
    public String toString() {
        return function + ": " + code.symbol() + " (" + message + ")";
    }
}
