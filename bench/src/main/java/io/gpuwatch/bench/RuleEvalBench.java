package io.gpuwatch.bench;

import io.gpuwatch.gateway.eval.Evaluator;
import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.gateway.state.NodeState;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.Transition;
import io.gpuwatch.rules.scope.ScopeKind;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The example rule pack over 1,000 cards (125 nodes × 8) with five minutes of 1 s history each: one operation is
 * one card evaluated — every card rule of the pack run for it through the gateway's {@link Evaluator}, as when
 * its sample lands. Card-rule evaluations per second = the score × the pack's card rules (printed at setup).
 * Run from the repository root, or set {@code -p rules=PATH}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(1)
public class RuleEvalBench {
    static final int NODES = 125;
    static final int CARDS = NODES * Fleets.CARDS_PER_NODE;

    @Param("examples/rules")
    public String rules;

    /**
     * Whether rules may sleep. The same instant is evaluated again and again, so a rule that may sleep and found
     * nothing does so after its first evaluation (5 of the 17 card rules here: the fleet's counters grow, so the
     * others fire or hold): false measures what running every rule costs, true what sleeping saves of it.
     */
    @Param({"false", "true"})
    public boolean sleep;

    private final List<CardState> cards = new ArrayList<>();
    private long fired;
    private final Consumer<Transition> transitions = t -> fired++;
    private Evaluator evaluator;
    private long now;

    @Setup
    public void setUp() {
        RuleSet set = Packs.load(rules);
        FleetState fleet = new FleetState();
        evaluator = new Evaluator(fleet, set, transitions);
        evaluator.engine().sleep(sleep);
        SplittableRandom random = new SplittableRandom(11);
        now = 1_764_700_000_000L;
        for (int n = 0; n < NODES; n++) {
            fleet.hello(Fleets.hello(n), now);
        }
        for (int s = 0; s < 300; s++) {
            now += 1000;
            for (int n = 0; n < NODES; n++) {
                fleet.sample("gpu-" + n, Fleets.sample(n, s + 1, now, random), now, c -> { });
            }
        }
        for (NodeState node : fleet.nodes()) {
            cards.addAll(node.cards());
        }
        long cardRules = set.rules().stream().map(Rule::scope).filter(ScopeKind.CARD::equals).count();
        System.out.printf("%n%d cards, %d card rules of %d in %s: card-rule evaluations/s = score × %d%n",
                cards.size(), cardRules, set.rules().size(), rules, cardRules);
    }

    @Benchmark
    @OperationsPerInvocation(CARDS)
    public long evaluateEveryCard() {
        for (int i = 0; i < CARDS; i++) {
            evaluator.card(cards.get(i), now);
        }
        return fired;
    }
}
