package io.gpuwatch.probe.scenario;

import java.util.Map;

/** The driver's short description of common XIDs, used when a scenario gives a code without text. */
public final class XidCatalog {
    private static final Map<Integer, String> TEXTS = Map.ofEntries(
            Map.entry(13, "Graphics Engine Exception"),
            Map.entry(31, "GPU memory page fault"),
            Map.entry(32, "Invalid or corrupted push buffer stream"),
            Map.entry(43, "GPU stopped processing"),
            Map.entry(45, "Preemptive cleanup, due to previous errors"),
            Map.entry(48, "Double Bit ECC Error"),
            Map.entry(61, "Internal micro-controller breakpoint/warning"),
            Map.entry(62, "Internal micro-controller halt"),
            Map.entry(63, "ECC page retirement or row remapping recording event"),
            Map.entry(64, "ECC page retirement or row remapper recording failure"),
            Map.entry(68, "NVDEC0 Exception"),
            Map.entry(69, "Graphics Engine class error"),
            Map.entry(74, "NVLINK Error"),
            Map.entry(79, "GPU has fallen off the bus"),
            Map.entry(92, "High single-bit ECC error rate"),
            Map.entry(94, "Contained ECC error"),
            Map.entry(95, "Uncontained ECC error"),
            Map.entry(109, "Context Switch Timeout Error"),
            Map.entry(119, "Timeout after 6s of waiting for RPC response from GPU0 GSP"),
            Map.entry(120, "GSP Error"),
            Map.entry(140, "Unrecovered ECC Error"),
            Map.entry(154, "GPU Recovery Action Changed"));

    private XidCatalog() {
    }

    /** The XID's description, or a generic one for codes not in the catalogue. */
    public static String text(int code) {
        return TEXTS.getOrDefault(code, "Xid " + code);
    }
}
