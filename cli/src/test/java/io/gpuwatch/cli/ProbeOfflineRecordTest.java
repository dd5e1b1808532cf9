package io.gpuwatch.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code probe --sim S --record T} without a gateway: the scenario in virtual time, replayable by backtest. */
class ProbeOfflineRecordTest extends InProcessCommandTest {

    @TempDir
    Path dir;

    @Test
    void recordsTraceAndLabelsThatBacktestReplays() throws Exception {
        Path trace = dir.resolve("day.trace.gz");
        Path labels = dir.resolve("day.labels.yaml");
        assertEquals(0, run("probe", "--sim", "../examples/scenarios/labelled-training.yaml", "--record",
                trace.toString()), err::toString);
        assertTrue(Files.size(trace) > 10_000);
        String text = Files.readString(labels);
        assertTrue(text.startsWith("trace: day.trace.gz\nscenario: labelled-training\n"), text);
        assertTrue(text.contains("kind: xid-79"), text);
        byte[] first = unzip(trace);
        // a second recording replaces the first: the same scenario gives the same frames
        assertEquals(0, run("probe", "--sim", "../examples/scenarios/labelled-training.yaml", "--record",
                trace.toString()), err::toString);
        assertArrayEquals(first, unzip(trace));
        assertEquals(text, Files.readString(labels));

        assertEquals(0, run("rules", "backtest", "--rules", "../examples/rules", "--trace", trace.toString(), "--format", "json"), err::toString);
        assertTrue(out.toString().contains("xid-fallen-off-bus"), out::toString);
        assertTrue(!err.toString().contains("skipped"), err::toString);
    }

    private static byte[] unzip(Path file) throws Exception {
        try (var in = new GZIPInputStream(Files.newInputStream(file))) {
            return in.readAllBytes();
        }
    }

    @Test
    void withoutRecordTheGatewayIsStillRequired() {
        assertEquals(2, run("probe", "--sim", "../examples/scenarios/demo.yaml"));
        assertTrue(err.toString().contains("--gateway"), err::toString);
    }

    @Test
    void anEndlessScenarioIsRefused() {
        assertEquals(1, run("probe", "--sim", "../examples/scenarios/quiet.yaml", "--record",
                dir.resolve("q.trace.gz").toString()));
        assertTrue(err.toString().contains("needs the scenario's 'duration'"), err::toString);
    }
}
