package io.gpuwatch.gateway.baseline;

import io.gpuwatch.gateway.replay.Replay;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;

import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A baseline does not learn the anomaly it watches for: while a rule that compares with it is pending or firing,
 * the business's series stops learning, and learns again once the episode is over.
 */
class BaselineHoldTest {
    private static final long T0 = 1_767_571_200_000L;
    private static final long MIN = 60_000;

    private static RuleSet rules() {
        RuleLoad load = RuleSet.parse("h.yml", """
                group: h
                layer: application
                severity: ticket
                scope: task
                rules:
                  - name: ttft-regression
                    when: avg(ttftP99Ms, 2m) > baseline(ttftP99Ms).upper(3)
                    for: 5m
                """);
        assertTrue(load.ok(), load.diagnostics()::toString);
        return load.ruleSet();
    }

    /** 40 minutes at 280 to 320 ms (a step a minute), then {@code regression} minutes at 900 ms, then 300 ms again until 100 min. */
    private static List<Replay.Sent> replay(List<BaselineBook> books, int regression, List<Double> upperAt60) {
        List<Replay.Sent> out = new ArrayList<>();
        Replay replay = new Replay(rules(), 1_000, out::add);
        BaselineBook book = replay.fleet().baselines();
        books.add(book);
        replay.feed("n1", new Hello(1, "n1", "b1", "test", null, null, Map.of(), List.of()), T0);
        long seq = 0;
        for (long s = 0; s < 100 * 60; s += 10) {
            long t = T0 + s * 1_000;
            boolean anomalous = s >= 40 * 60 && s < (40 + regression) * 60;
            double ttft = anomalous ? 900 : 300 + (s / 60 % 5 - 2) * 10;
            replay.feed("n1", new App(++seq, t, "chat", "ads", "vllm",
                    MetricValues.builder().set(Metric.TTFT_P99_MS, ttft).build()), t);
            if (s == 60 * 60) {
                Baseline b = book.get("ads", "ttftP99Ms", t);
                upperAt60.add(b.mean() + 3 * b.std());
            }
        }
        replay.advanceTo(T0 + 100 * MIN);
        return out;
    }

    @Test
    void aLongRegressionStaysFiringAndTheBaselineDoesNotLearnIt() {
        List<BaselineBook> books = new ArrayList<>();
        List<Double> upper = new ArrayList<>();
        List<Replay.Sent> alerts = replay(books, 40, upper);
        BaselineBook book = books.get(0);
        List<Replay.Sent> firing = alerts.stream().filter(Replay.Sent::firing).toList();
        List<Replay.Sent> resolved = alerts.stream().filter(s -> !s.firing()).toList();
        assertEquals(1, firing.size(), alerts::toString);
        assertEquals(1, resolved.size(), alerts::toString);
        // fires some minutes into the regression and resolves only once it is over (at 80 min), not when the
        // baseline would have caught up with it
        assertTrue(firing.get(0).at() < T0 + 50 * MIN, firing::toString);
        assertTrue(resolved.get(0).at() >= T0 + 80 * MIN, resolved::toString);
        // twenty minutes into the regression, the normal is still what it was before it
        assertTrue(upper.get(0) < 400, "upper bound at 60 min: " + upper.get(0));
        assertFalse(book.held("ads", "ttftP99Ms"), "the episode is over, the series learns again");
    }

    @Test
    void theBaselineLearnsAgainAfterTheEpisode() {
        List<BaselineBook> books = new ArrayList<>();
        replay(books, 40, new ArrayList<>());
        BaselineBook book = books.get(0);
        long samplesAfter = book.get("ads", "ttftP99Ms", T0 + 100 * MIN).samples();
        // 40 normal minutes before, the regression's none, and most of the 20 after the episode closed
        assertTrue(samplesAfter >= 50 && samplesAfter < 62, "minutes learned: " + samplesAfter);
    }

    @Test
    void holdersAreCountedAndReleasedByName() {
        BaselineBook book = new BaselineBook(24 * 60, 4, 30, ZoneId.of("UTC"), BaselineBook.WARM_UP_MINUTES);
        book.observe("ads", "ttftP99Ms", T0, 300);
        book.hold("ads", "ttftP99Ms", "young");
        assertFalse(book.held("ads", "ttftP99Ms"), "a baseline of one minute is not held");
        for (int m = 1; m <= BaselineBook.WARM_UP_MINUTES; m++) {
            book.observe("ads", "ttftP99Ms", T0 + m * MIN, 300);
        }
        long learned = BaselineBook.WARM_UP_MINUTES;
        book.hold("ads", "ttftP99Ms", "a");
        book.hold("ads", "ttftP99Ms", "a");
        book.hold("ads", "ttftP99Ms", "b");
        book.hold(null, "ttftP99Ms", "c");
        book.hold("search", "ttftP99Ms", "d");
        long m = BaselineBook.WARM_UP_MINUTES;
        assertTrue(book.held("ads", "ttftP99Ms"));
        assertFalse(book.held("search", "ttftP99Ms"), "nothing learned, nothing to hold");
        book.observe("ads", "ttftP99Ms", T0 + (m + 1) * MIN, 5_000);
        book.release("a");
        assertTrue(book.held("ads", "ttftP99Ms"), "b still holds it");
        book.observe("ads", "ttftP99Ms", T0 + (m + 2) * MIN, 5_000);
        book.release("b");
        assertFalse(book.held("ads", "ttftP99Ms"));
        book.observe("ads", "ttftP99Ms", T0 + (m + 3) * MIN, 300);
        Baseline b = book.get("ads", "ttftP99Ms", T0 + (m + 4) * MIN);
        assertEquals(300, b.mean(), 1e-9, "the held minutes were never learned");
        assertEquals(learned + 1, b.samples(), "the minute being filled when it was held was dropped too");
    }
}
