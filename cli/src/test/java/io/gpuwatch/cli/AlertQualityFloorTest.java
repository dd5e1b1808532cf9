package io.gpuwatch.cli;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A regression guard on alert quality: a slice of the labelled corpus (examples/corpus) is recorded and scored
 * against the shipped pack, and no measure may fall below the floor set from today's figures
 * (docs/alert-quality.md). Not a timed test: only what the pack decides is compared.
 */
class AlertQualityFloorTest extends InProcessCommandTest {
    private static final String[] SLICE = {"device-faults", "normal-day"};

    @TempDir
    Path dir;

    @Test
    void theShippedPackScoresAtLeastItsFloorsOnASliceOfTheCorpus() {
        String[] score = new String[SLICE.length + 6];
        score[0] = "rules";
        score[1] = "score";
        score[2] = "--rules";
        score[3] = "../examples/rules";
        score[4] = "--format";
        score[5] = "json";
        for (int i = 0; i < SLICE.length; i++) {
            // half in each trace form: offline recording, labels beside the trace and scoring, binary too
            Path trace = dir.resolve(SLICE[i] + (i % 2 == 0 ? ".trace.gz" : ".gwt"));
            assertEquals(0, run("probe", "--sim", "../examples/corpus/" + SLICE[i] + ".yaml", "--record",
                    trace.toString()), err::toString);
            score[6 + i] = trace.toString();
        }
        out.getBuffer().setLength(0);
        assertEquals(0, run(score), err::toString);
        JsonObject summary = new JsonObject(out.toString()).getJsonObject("summary");
        String all = summary.encodePrettily();
        assertAtLeast(summary, "hardOnTime", Floors.HARD_ON_TIME, all);
        assertAtLeast(summary, "severityRight", Floors.SEVERITY_RIGHT, all);
        assertAtLeast(summary, "notificationPrecision", Floors.NOTIFICATION_PRECISION, all);
        assertAtLeast(summary, "pagePrecision", Floors.PAGE_PRECISION, all);
        double pagesPerIncident = summary.getJsonObject("pagesPerPagedIncident").getDouble("value");
        assertTrue(pagesPerIncident <= Floors.PAGES_PER_INCIDENT, "pages per paged incident " + pagesPerIncident + "\n" + all);
        int paged = summary.getJsonObject("lookalikesPaged").getInteger("part");
        assertTrue(paged <= Floors.LOOKALIKES_PAGED, paged + " look-alikes paged\n" + all);
    }

    private static void assertAtLeast(JsonObject summary, String measure, double floor, String all) {
        double value = summary.getJsonObject(measure).getDouble("value");
        assertTrue(value >= floor, measure + " " + value + " fell below its floor " + floor + "\n" + all);
    }

    /** The floors, a little under the figures of the pack as shipped (docs/alert-quality.md). */
    private static final class Floors {
        static final double HARD_ON_TIME = 0.95;
        static final double SEVERITY_RIGHT = 0.95;
        static final double NOTIFICATION_PRECISION = 0.85;
        static final double PAGE_PRECISION = 0.95;
        static final double PAGES_PER_INCIDENT = 1.05;
        static final int LOOKALIKES_PAGED = 0;
    }
}
