package io.gpuwatch.probe.nvml;

/** NVML's return codes ({@code nvmlReturn_t}) with their numeric values. */
public enum NvmlReturn {
    SUCCESS(0),
    UNINITIALIZED(1),
    INVALID_ARGUMENT(2),
    NOT_SUPPORTED(3),
    NO_PERMISSION(4),
    ALREADY_INITIALIZED(5),
    NOT_FOUND(6),
    INSUFFICIENT_SIZE(7),
    INSUFFICIENT_POWER(8),
    DRIVER_NOT_LOADED(9),
    TIMEOUT(10),
    IRQ_ISSUE(11),
    LIBRARY_NOT_FOUND(12),
    FUNCTION_NOT_FOUND(13),
    CORRUPTED_INFOROM(14),
    GPU_IS_LOST(15),
    RESET_REQUIRED(16),
    OPERATING_SYSTEM(17),
    LIB_RM_VERSION_MISMATCH(18),
    IN_USE(19),
    MEMORY(20),
    NO_DATA(21),
    VGPU_ECC_NOT_SUPPORTED(22),
    INSUFFICIENT_RESOURCES(23),
    FREQ_NOT_SUPPORTED(24),
    ARGUMENT_VERSION_MISMATCH(25),
    DEPRECATED(26),
    NOT_READY(27),
    GPU_NOT_FOUND(28),
    INVALID_STATE(29),
    RESET_TYPE_NOT_SUPPORTED(30),
    UNKNOWN(999);

    private static final NvmlReturn[] ALL = values();

    private final int code;

    NvmlReturn(int code) {
        this.code = code;
    }

    /** The numeric {@code nvmlReturn_t}. */
    public int code() {
        return code;
    }

    /** The C name, e.g. {@code NVML_ERROR_GPU_IS_LOST}. */
    public String symbol() {
        return this == SUCCESS ? "NVML_SUCCESS" : "NVML_ERROR_" + name();
    }

    /** The return code of this number; a code newer than this list reads as {@link #UNKNOWN}. */
    public static NvmlReturn of(int code) {
        for (NvmlReturn r : ALL) {
            if (r.code == code) {
                return r;
            }
        }
        return UNKNOWN;
    }
}
