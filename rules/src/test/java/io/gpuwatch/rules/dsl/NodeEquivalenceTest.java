package io.gpuwatch.rules.dsl;

import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.scope.BaselineStat;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.scope.ScopeKind;
import io.gpuwatch.rules.scope.ScopeView;
import io.gpuwatch.rules.scope.Series;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Conditions evaluated through the node tree agree with the MVEL they were compiled to, on random scopes with
 * absent (NaN) values, absent labels, events, baselines and member cards, over runs of evaluations.
 */
class NodeEquivalenceTest {
    private static final List<String> CARD_CONDITIONS = List.of(
            "avg(gpuUtil, 5m) > 80 && min(pcieLinkWidth, 1m) < 16 || max(tempC, 30s) >= 85.5",
            "sum(nvlinkLinksDown, 5m) > 0 && count(gpuUtil, 1m) < 30 && last(smClockMHz, 30s) <= 1000",
            "rate(eccCorrectedVolatile, 10m) > 0.1 || increase(eccUncorrectedVolatile, 1h) > 0",
            "slope(memUsedBytes, 2m) > 100MiB/1m && memUsedBytes / 1GiB > 70 && powerW * 2 - 1 > -5 % 3",
            "fraction(tempC > 85 && gpuUtil > 50, 5m) > 0.5",
            "throttled('HW_SLOWDOWN', 'HW_POWER_BRAKE_SLOWDOWN') && !allocated",
            "count(events('xid', 79), 10m) > 0 || count(events('oom'), 1h) > 2",
            "distinct(events('xid'), 1h) != '' && node == 'gpu-a17' && card.uuid != \"it's\"",
            "card.name == 'x' && card.index == '0' && task == 'train' && owner != 'bob' && business == 'ads'",
            "labels.cluster == 'bj-1' && labels['rack-id'] != 'r1' && silentFor > 30s && -gpuUtil < 0",
            "quantile(tempC, 0.99, 10m) > 88 && delta(memUsedBytes, 10m) > 1GiB && resets(pcieReplays, 1h) > 0",
            "changes(pstate, 10m) > 3 && predict(memUsedBytes, 15m, 1h) > 80GiB || absent(tempC, 5m)",
            "consecutive(tempC > 85 && !absent(gpuUtil, 1m), 5) || consecutive(gpuUtil < 5, 3)",
            "consecutive(gpuUtil > 50, 2) && gpuUtil / (tempC - 60) > 1 || tempC % 7 == 3 || gpuUtil != tempC",
            "tempC == gpuUtil || tempC != tempC || !(gpuUtil >= 50) == (tempC < 70)",
            "node == task || labels.cluster != node || baseline(powerW).zscore > 1 && baseline(powerW).upper(3) < powerW",
            "baseline(tempC).mean + baseline(tempC).std * 2 > tempC || baseline(tempC).lower(2) > tempC",
            "true != false && (gpuUtil > 10 || tempC > 40)",
            "avg(tempC, 1s) == avg(gpuUtil, 1s) || !(avg(tempC, 1s) != avg(powerW, 1s))");
    private static final List<String> POOL = List.of("gpu-a17", "train", "bob", "ads", "bj-1", "r1", "x", "0",
            "it's", "other");
    private static final int SCOPES = 12;
    private static final int EVALUATIONS = 8;

    @Test
    void generatedConditionsAgreeWithTheirMvel() throws DslException {
        for (String source : CARD_CONDITIONS) {
            SeriesCatalog catalog = new SeriesCatalog();
            Expression e = new DslCompiler(ScopeKind.CARD, catalog).condition(source, new ArrayList<>());
            assertAgrees(source, e, catalog, ScopeKind.CARD);
        }
    }

    @Test
    void everyConditionOfTheExamplePackAgreesWithItsMvel() throws DslException {
        RuleLoad load = RuleSet.load(List.of(Path.of("../examples/rules")));
        assertTrue(load.ok(), load.diagnostics()::toString);
        for (Rule r : load.ruleSet().rules()) {
            SeriesCatalog catalog = new SeriesCatalog();
            Expression e = new DslCompiler(r.scope(), catalog).condition(r.when(), new ArrayList<>());
            assertAgrees(r.name() + ": " + r.when(), e, catalog, r.scope());
        }
    }

    private static void assertAgrees(String what, Expression e, SeriesCatalog catalog, ScopeKind scope) {
        SplittableRandom random = new SplittableRandom(what.hashCode());
        for (int s = 0; s < SCOPES; s++) {
            int[] streaks = new int[e.streaks()];
            int[] reference = new int[e.streaks()];
            List<FakeScope> cards = new ArrayList<>();
            FakeScope scopeData = scope(catalog, random);
            int members = scope == ScopeKind.TASK || scope == ScopeKind.BUSINESS ? 1 + random.nextInt(4) : 0;
            for (int m = 0; m < members; m++) {
                cards.add(scope(catalog, random));
            }
            ScopeView view = members == 0 ? scopeData : new Group(scopeData, cards);
            for (int i = 0; i < EVALUATIONS; i++) {
                long now = 1_000_000L + i * 15_000L;
                sample(scopeData, catalog, now, random);
                for (FakeScope card : cards) {
                    sample(card, catalog, now, random);
                    for (Expression member : e.memberConditions()) {
                        assertEquals(member.viaMvel(card, null), member.test(card), what + " card condition "
                                + member.canonical() + ", scope " + s + ", evaluation " + i);
                    }
                }
                e.advance(view, streaks);
                for (int k = 0; k < reference.length; k++) {
                    boolean streakHolds = (Boolean) e.streakConditions().get(k).viaMvel(view, null);
                    reference[k] = streakHolds ? reference[k] + 1 : 0;
                }
                assertArrayEquals(reference, streaks, what + ": streaks, scope " + s + ", evaluation " + i);
                boolean expected = (Boolean) e.viaMvel(view, reference.clone());
                assertEquals(expected, e.test(view, streaks), what + ", scope " + s + ", evaluation " + i);
            }
        }
    }

    /** A scope with labels drawn from the literals the conditions compare with, or absent. */
    private static FakeScope scope(SeriesCatalog catalog, SplittableRandom random) {
        Map<String, Optional<String>> labels = new HashMap<>();
        SplittableRandom labelRandom = random.split();
        FakeScope f = new FakeScope(catalog.specs(), Map.of("node", "gpu-a17", "uuid", "GPU-1"))
                .allocated(random.nextBoolean())
                .labelHook(k -> labels.computeIfAbsent(k, x -> labelRandom.nextInt(4) == 0 ? Optional.empty()
                        : Optional.of(POOL.get(labelRandom.nextInt(POOL.size()))))
                        .orElse(null));
        for (Metric m : Metric.values()) {
            if (random.nextInt(3) > 0) {
                f.baseline("ads", m, random.nextInt(100), random.nextInt(20));
            }
        }
        return f;
    }

    /** One sample of every metric, some absent, some whole numbers so that equality can hold. */
    private static void sample(FakeScope f, SeriesCatalog catalog, long now, SplittableRandom random) {
        if (random.nextInt(6) == 0) {
            f.heard(now);
            f.at(now + 40_000);
            return;
        }
        Map<Metric, Double> values = new EnumMap<>(Metric.class);
        for (Metric m : Metric.values()) {
            int kind = random.nextInt(8);
            double v = switch (kind) {
                case 0 -> Double.NaN;
                case 1 -> random.nextInt(8);
                case 2 -> random.nextDouble() * 200e9;
                case 3 -> random.nextInt(1 << 12);
                default -> random.nextInt(110) + (random.nextBoolean() ? 0 : random.nextDouble());
            };
            values.put(m, v);
        }
        f.sample(now, values);
        if (random.nextInt(3) == 0) {
            List<String> kinds = List.copyOf(Event.KNOWN_KINDS);
            f.event(now, kinds.get(random.nextInt(kinds.size())), List.of(13, 31, 48, 79, 94).get(random.nextInt(5)));
        }
    }

    /** A task or business scope: its own series and labels, and member cards. */
    private record Group(FakeScope own, List<FakeScope> cards) implements ScopeView {
        @Override
        public long now() {
            return own.now();
        }

        @Override
        public String label(String key) {
            return own.label(key);
        }

        @Override
        public Map<String, String> identity() {
            return own.identity();
        }

        @Override
        public Series series(int seriesId) {
            return own.series(seriesId);
        }

        @Override
        public int countEvents(String kind, int code, long windowMs) {
            return own.countEvents(kind, code, windowMs);
        }

        @Override
        public List<String> distinctEvents(String kind, int code, long windowMs) {
            return own.distinctEvents(kind, code, windowMs);
        }

        @Override
        public long silentForMs() {
            return own.silentForMs();
        }

        @Override
        public boolean allocated() {
            return own.allocated();
        }

        @Override
        public double baseline(int seriesId, BaselineStat stat, double k) {
            return own.baseline(seriesId, stat, k);
        }

        @Override
        public List<? extends ScopeView> members() {
            return cards;
        }
    }
}
