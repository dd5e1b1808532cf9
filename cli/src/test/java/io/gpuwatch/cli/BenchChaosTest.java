package io.gpuwatch.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
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

/**
 * {@code gpuwatch bench chaos}, short: a clean run and two trials of two SIGKILLs each (mid-send, outage, random)
 * of a real gateway process, on a 40 s scenario. One bench run serves every test here. The tolerance is wide (60 s)
 * because a gateway restarting on a loaded two-core machine can take half a minute to take probes again.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BenchChaosTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private JsonObject report;
    private int code;

    @BeforeAll
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void runTheBench(@TempDir Path work) throws Exception {
        Path scenario = Path.of(BenchChaosTest.class.getResource("/chaos/short.yaml").toURI());
        code = new CommandLine(new BenchCommand()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
                .execute("chaos", "--scenario", scenario.toString(), "--rules", "../examples/rules", "--trials", "2",
                        "--kills", "2", "--parallel", "2", "--settle", "20s", "--seed", "5", "--tolerance", "60s", "--work-dir",
                        work.toString(), "--json");
        report = new JsonObject(out.toString());
    }

    @Test
    void theCleanRunPagesTwiceResolvesOnceAndEveryTrialIsComparedWithIt() {
        assertTrue(code == 0 || code == 1, "ran to the end: " + err);
        JsonObject clean = report.getJsonObject("clean");
        assertEquals(2, clean.getInteger("alerts"), "xid-fallen-off-bus and node-silent: " + clean);
        assertEquals(2, clean.getInteger("pages"), clean.encodePrettily());
        assertEquals(1, clean.getInteger("resolves"), "node-silent resolves when gpu-1 is back: " + clean);
        assertEquals(1, clean.getInteger("openAtEnd"), "the card off the bus stays paged: " + clean);

        JsonArray trials = report.getJsonArray("trialResults");
        assertEquals(2, trials.size());
        for (int i = 0; i < trials.size(); i++) {
            JsonObject t = trials.getJsonObject(i);
            JsonArray kills = t.getJsonArray("kills");
            assertEquals(2, kills.size(), t.encodePrettily());
            for (int k = 0; k < kills.size(); k++) {
                JsonObject kill = kills.getJsonObject(k);
                assertTrue(kill.getLong("killedAtMs") > 0 && kill.getLong("killedAtMs") < report.getLong("runMs"),
                        "killed during the run: " + kill);
                assertTrue(kill.getLong("downMs") > 0, "restarted: " + kill);
            }
            assertTrue(t.getInteger("sends") > 0, "the restarted gateway notified: " + t.encodePrettily());
        }
        JsonObject total = report.getJsonObject("total");
        assertEquals(0, total.getInteger("doubledOther"), "nothing doubled that a receiver cannot drop by key: "
                + report.encodePrettily());
        assertEquals(0, total.getInteger("outOfOrder"), report.encodePrettily());
        assertNotNull(report.getJsonObject("clean").getJsonArray("notifications"));
    }

    @Test
    void aWorkDirHoldingAnEarlierRunIsRefusedBeforeAnythingRuns(@TempDir Path used) throws Exception {
        Files.createDirectories(used.resolve("clean/data-0"));
        StringWriter refusal = new StringWriter();
        Path scenario = Path.of(BenchChaosTest.class.getResource("/chaos/short.yaml").toURI());
        int exit = new CommandLine(new BenchCommand()).setErr(new PrintWriter(refusal, true))
                .execute("chaos", "--scenario", scenario.toString(), "--rules", "../examples/rules", "--work-dir",
                        used.toString());
        assertEquals(2, exit, refusal.toString());
        assertTrue(refusal.toString().contains("holds an earlier run"), refusal.toString());
    }

    @Test
    void noTrialLosesAPageOrAResolveOrSendsOneLate() {
        JsonObject total = report.getJsonObject("total");
        assertEquals(0, total.getInteger("lostPages"), report.encodePrettily());
        assertEquals(0, total.getInteger("lostResolves"), report.encodePrettily());
        assertEquals(0, total.getInteger("latePages"), report.encodePrettily());
        assertEquals(0, total.getInteger("lateResolves"), report.encodePrettily());
        assertEquals(0, code, err.toString());
    }
}
