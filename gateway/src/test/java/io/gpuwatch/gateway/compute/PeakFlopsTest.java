package io.gpuwatch.gateway.compute;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** NVML names find their row of the peak table, look-alike names do not, and docs list the same figures. */
class PeakFlopsTest {
    private static String model(String nvmlName) {
        PeakFlops.Model m = PeakFlops.modelOf(nvmlName);
        return m == null ? null : m.name();
    }

    @Test
    void nvmlNamesFindTheirModelAndLookAlikesDoNot() {
        assertEquals("H100 SXM", model("NVIDIA H100 80GB HBM3"));
        assertEquals("H100 PCIe", model("NVIDIA H100 PCIe"));
        assertEquals("H100 NVL", model("NVIDIA H100 NVL"));
        assertEquals("H200 SXM", model("NVIDIA H200"));
        assertEquals("H200 NVL", model("NVIDIA H200 NVL"));
        assertEquals("B200", model("NVIDIA B200"));
        assertEquals("A100", model("NVIDIA A100-SXM4-40GB"));
        assertEquals("A100", model("NVIDIA A100 80GB PCIe"));
        assertEquals("L40S", model("NVIDIA L40S"));
        assertEquals("L4", model("NVIDIA L4"));
        assertEquals("A10", model("NVIDIA A10"));
        assertNull(model("NVIDIA A10G"), "the A10G is another card");
        assertNull(model("NVIDIA L40"), "the L40 is neither the L4 nor the L40S");
        assertNull(model("Tesla V100-SXM2-32GB"));
        assertNull(model(null));
    }

    @Test
    void peaksAreDenseAndMissingMathIsUnknown() {
        assertEquals(989.4e12, PeakFlops.of("NVIDIA H100 80GB HBM3", "bf16"), 1e6);
        assertEquals(1978.9e12, PeakFlops.of("NVIDIA H100 80GB HBM3", "fp8"), 1e6);
        assertEquals(312e12, PeakFlops.of("NVIDIA A100-SXM4-80GB", "fp16"), 1e6);
        assertTrue(Double.isNaN(PeakFlops.of("NVIDIA A100-SXM4-80GB", "fp8")), "Ampere has no FP8");
        assertTrue(Double.isNaN(PeakFlops.of("NVIDIA L40S", "fp64")));
        assertTrue(Double.isNaN(PeakFlops.of("Tesla T4", "fp16")));
    }

    @Test
    void theDocumentedTableHasTheSameFigures() throws IOException {
        String doc = Files.readString(Path.of("../docs/business-metrics.md"));
        for (PeakFlops.Model m : PeakFlops.MODELS) {
            int row = doc.indexOf("\n| " + m.name() + " (");
            assertTrue(row >= 0, "docs/business-metrics.md has no row for " + m.name());
            String[] cells = doc.substring(row + 1, doc.indexOf('\n', row + 1)).split("\\|");
            String[] precisions = {"fp64", "fp32", "tf32", "bf16", "fp8", "int8", "fp4"};
            for (int i = 0; i < precisions.length; i++) {
                Double peak = m.peak().get(precisions[i]);
                String cell = cells[i + 2].strip().replace(",", "");
                String expected = peak == null ? "" : trim(peak / 1e12);
                assertEquals(expected, cell, m.name() + " " + precisions[i]);
            }
            assertEquals(m.peak().get("bf16"), m.peak().get("fp16"), "one column holds bf16 and fp16");
        }
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, "%.2f", v);
        return s.replaceAll("0+$", "").replaceAll("\\.$", "");
    }
}
