package io.gpuwatch.cli;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code gpuwatch bench fleet} against an embedded gateway: a short run, end to end. */
class BenchFleetTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int bench(String... args) {
        return new CommandLine(new BenchCommand()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
                .execute(args);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aShortRunHasEveryFrameAcknowledgedPagesItsXidReportsTheLatencyAndEndsByItself(@TempDir Path dir) throws Exception {
        Path summary = dir.resolve("summary.json");
        int code = bench("fleet", "--embedded", "--rules", "../examples/rules", "--nodes", "20", "--cards", "8",
                "--interval", "1s", "--duration", "5s", "--xid-at", "2s", "--webhook-port", "0", "--app-every", "2",
                "--report-every", "2s", "--drain", "15s", "--summary-json", summary.toString());
        String report = out.toString();
        assertEquals(0, code, report + err);

        JsonObject s = new JsonObject(Files.readString(summary));
        assertTrue(s.getLong("sampleFrames") >= 20 * 4, "about five samples per node: " + s);
        assertEquals(s.getLong("framesCreated"), s.getLong("framesAcked"), "every frame acknowledged: " + s);
        assertEquals(0, s.getLong("unacked"));
        assertEquals(0, s.getLong("errors"));
        assertEquals(1, s.getLong("events"));
        assertTrue(s.getLong("appFrames") > 0);
        assertEquals(s.getLong("sampleFrames") * 8 * 29 + s.getLong("appFrames") * 15, s.getLong("samples"),
                "samples count every metric value: 29 per card, 15 per app frame");
        JsonObject gw = s.getJsonObject("embeddedGateway");
        assertEquals(s.getLong("sampleFrames") * 8, gw.getLong("cardReadings"), "the gateway took every card reading");
        assertEquals(0, gw.getLong("shedSamples"));
        assertEquals(0, gw.getLong("badFrames"));

        JsonObject latency = s.getJsonObject("latency");
        assertEquals(1, latency.getInteger("sent"));
        assertEquals(1, latency.getInteger("paged"), "the XID paged: " + s);
        JsonObject xid = s.getJsonArray("xids").getJsonObject(0);
        assertNotNull(xid.getLong("latencyMs"));
        assertTrue(xid.getLong("latencyMs") >= 0 && xid.getLong("latencyMs") < 5000, "latency " + xid);
        assertTrue(report.contains("XID latency (sent → webhook received): 1 sent, 1 paged, median "
                + xid.getLong("latencyMs") + " ms"), report);
        assertTrue(report.contains("bench fleet:"), "progress lines: " + report);
    }

    @Test
    void aGatewayUrlWithoutATokenFileIsRefusedNamingTheOption() {
        assertEquals(2, bench("fleet", "--gateway", "ws://127.0.0.1:1/v1/probe", "--duration", "2s"));
        assertTrue(err.toString().contains("--token-file"), err.toString());
        assertEquals(2, bench("fleet", "--embedded", "--duration", "forever"));
        assertTrue(err.toString().contains("--duration: expected a duration"), err.toString());
    }
}
