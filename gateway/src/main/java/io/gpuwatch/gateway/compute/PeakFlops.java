package io.gpuwatch.gateway.compute;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Peak dense FLOP/s of one card by GPU model and precision: NVIDIA's datasheet figures for tensor-core math
 * without structured sparsity (the datasheets print the sparse figure, twice the dense one, with an asterisk).
 * Sources per model in docs/business-metrics.md; the denominator of {@code effectiveComputeRatio}.
 */
public final class PeakFlops {
    private static final double T = 1e12;

    /** One model: the NVML names it matches and its peak per precision (absent where the card has no such math). */
    public record Model(String name, Pattern matches, Map<String, Double> peak) {
    }

    /** In match order: the more specific names (H100 NVL, H100 PCIe) before the family (H100 SXM). */
    public static final List<Model> MODELS = List.of(
            model("H100 NVL", "H100 NVL", Map.of("fp64", 60 * T, "fp32", 60 * T, "tf32", 417.5 * T,
                    "bf16", 835.5 * T, "fp16", 835.5 * T, "fp8", 1670.5 * T, "int8", 1670.5 * T)),
            model("H100 PCIe", "H100.*PCIe", Map.of("fp64", 51 * T, "fp32", 51 * T, "tf32", 378 * T,
                    "bf16", 756.5 * T, "fp16", 756.5 * T, "fp8", 1513 * T, "int8", 1513 * T)),
            model("H100 SXM", "H100", Map.of("fp64", 67 * T, "fp32", 67 * T, "tf32", 494.7 * T,
                    "bf16", 989.4 * T, "fp16", 989.4 * T, "fp8", 1978.9 * T, "int8", 1978.9 * T)),
            model("H200 NVL", "H200 NVL", Map.of("fp64", 60 * T, "fp32", 60 * T, "tf32", 417.5 * T,
                    "bf16", 835.5 * T, "fp16", 835.5 * T, "fp8", 1670.5 * T, "int8", 1670.5 * T)),
            model("H200 SXM", "H200", Map.of("fp64", 67 * T, "fp32", 67 * T, "tf32", 494.7 * T,
                    "bf16", 989.4 * T, "fp16", 989.4 * T, "fp8", 1978.9 * T, "int8", 1978.9 * T)),
            model("B200", "B200", Map.of("fp64", 37 * T, "fp32", 75 * T, "tf32", 1125 * T, "bf16", 2250 * T,
                    "fp16", 2250 * T, "fp8", 4500 * T, "int8", 4500 * T, "fp4", 9000 * T)),
            model("A100", "A100", Map.of("fp64", 19.5 * T, "fp32", 19.5 * T, "tf32", 156 * T, "bf16", 312 * T,
                    "fp16", 312 * T, "int8", 624 * T)),
            model("L40S", "L40S", Map.of("fp32", 91.6 * T, "tf32", 183 * T, "bf16", 362.05 * T, "fp16", 362.05 * T,
                    "fp8", 733 * T, "int8", 733 * T)),
            model("L4", "\\bL4\\b", Map.of("fp32", 30.3 * T, "tf32", 60 * T, "bf16", 121 * T, "fp16", 121 * T,
                    "fp8", 242.5 * T, "int8", 242.5 * T)),
            model("A10", "\\bA10\\b", Map.of("fp32", 31.2 * T, "tf32", 62.5 * T, "bf16", 125 * T, "fp16", 125 * T,
                    "int8", 250 * T)));

    private PeakFlops() {
    }

    private static Model model(String name, String regex, Map<String, Double> peak) {
        return new Model(name, Pattern.compile(regex, Pattern.CASE_INSENSITIVE), peak);
    }

    /** The model an NVML card name is, or null when the table lacks it. */
    public static Model modelOf(String cardName) {
        if (cardName == null) {
            return null;
        }
        for (Model m : MODELS) {
            if (m.matches().matcher(cardName).find()) {
                return m;
            }
        }
        return null;
    }

    /** Peak dense FLOP/s of a card of that NVML name at {@code precision}; NaN when the table lacks either. */
    public static double of(String cardName, String precision) {
        Model m = modelOf(cardName);
        Double v = m == null ? null : m.peak().get(precision);
        return v == null ? Double.NaN : v;
    }
}
