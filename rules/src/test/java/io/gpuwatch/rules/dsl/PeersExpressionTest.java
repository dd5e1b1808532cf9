package io.gpuwatch.rules.dsl;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.scope.FakeScope;
import io.gpuwatch.rules.scope.ScopeKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code peers(m, w)} and its accessors: what each reads of the scope's group, and load-time errors. */
class PeersExpressionTest {
    private final SeriesCatalog catalog = new SeriesCatalog();
    private final DslCompiler compiler = new DslCompiler(ScopeKind.CARD, catalog);
    private final List<DslProblem> warnings = new ArrayList<>();

    private Expression compile(String src) {
        try {
            return compiler.value(src, warnings);
        } catch (DslException e) {
            throw new AssertionError(src + ": " + e.getMessage() + " at " + e.offset(), e);
        }
    }

    /** Four cards of one task over the last minute: the straggler at 45%, the others at 93 to 95%. */
    private List<FakeScope> task(Expression e) {
        double[] util = {45, 93, 94, 95};
        List<FakeScope> cards = new ArrayList<>();
        for (int i = 0; i < util.length; i++) {
            FakeScope card = new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-" + i));
            for (long t = 0; t <= 60_000; t += 1_000) {
                card.sample(t, Map.of(Metric.GPU_UTIL, util[i]));
            }
            cards.add(card);
        }
        cards.forEach(c -> c.peers(cards));
        return cards;
    }

    private double num(String src, int card) {
        Expression e = compile(src);
        return (Double) e.value(task(e).get(card));
    }

    @Test
    void eachAccessorReadsItsFigure() {
        assertEquals(94, num("peers(gpuUtil, 1m).median", 0));
        assertEquals(45 / 94.0, num("peers(gpuUtil, 1m).ratio", 0), 1e-12);
        assertEquals(3, num("peers(gpuUtil, 1m).count", 0));
        assertEquals(1, num("peers(gpuUtil, 1m).spread", 0));
        assertEquals(93, num("peers(gpuUtil, 1m).median", 2));
        Expression straggler = compile("peers(gpuUtil, 1m).ratio < 0.75 && peers(gpuUtil, 1m).count >= 3");
        List<FakeScope> cards = task(straggler);
        assertEquals(List.of(true, false, false, false), cards.stream().map(straggler::test).toList());
    }

    @Test
    void aCardWithoutPeersHasNoFigures() {
        Expression e = compile("peers(gpuUtil, 1m).ratio");
        FakeScope alone = new FakeScope(catalog.specs(), Map.of("node", "n1", "uuid", "GPU-9"));
        alone.sample(0, Map.of(Metric.GPU_UTIL, 50.0));
        assertTrue(((Double) e.value(alone)).isNaN());
        assertEquals(0.0, compile("peers(gpuUtil, 1m).count").value(alone));
    }

    @Test
    void theCanonicalFormAndMvelCallOnlyTheContext() {
        Expression e = compile("peers( gpuUtil,2m ).ratio<0.75");
        assertEquals("peers(gpuUtil, 2m).ratio < 0.75", e.canonical());
        assertEquals("(peers(0, 120000L, 3) < 0.75)", e.mvel());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "peers(gpuUtil, 2m) > 1 | 6:11 | peers(m, w) needs .median, .spread, .count or .ratio, "
            + "e.g. peers(gpuUtil, 2m).ratio < 0.7",
        "peers(gpuUtil, 2m).mediam > 1 | 6:30 | unknown peers accessor `.mediam` (did you mean `median`?)",
        "peers(gpuUtil, 2m).ratio(2) > 1 | 6:30 | `.ratio` takes no arguments: peers(gpuUtil, 2m).ratio",
        "peers(gpuUtil).ratio > 1 | 6:11 | `peers` takes 2 arguments (metric, window), got 1",
        "peers(gpuUtil, 48h).ratio > 1 | 6:26 | window 48h is longer than the 24h the gateway keeps",
        "peers(gpuUtl, 2m).ratio > 1 | 6:17 | unknown metric `gpuUtl` (did you mean `gpuUtil`?)",
    })
    void mistakesAreErrorsAtTheirPosition(String when, String at, String message) {
        assertEquals("r.yml:" + at + ": error: " + message, RejectionTest.error(when));
    }

    @Test
    void peersNeedCardOrNodeScope() {
        DslCompiler task = new DslCompiler(ScopeKind.TASK, new SeriesCatalog());
        DslException e = org.junit.jupiter.api.Assertions.assertThrows(DslException.class,
                () -> task.condition("peers(gpuUtil, 2m).ratio < 0.75", warnings));
        assertTrue(e.getMessage().contains("needs card, node or replica scope, not task"), e.getMessage());
    }
}
