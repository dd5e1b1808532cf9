package io.gpuwatch.gateway.coverage;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.metric.DerivedMetric;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The protocol metrics a rule needs to fire: the metric names in its canonical conditions ({@code when} and
 * {@code keep_firing_while}, quoted text left out), a derived metric standing for the metrics it is computed from.
 */
final class RuleReads {
    private static final Pattern QUOTED = Pattern.compile("'(?:[^'\\\\]|\\\\.)*'|\"(?:[^\"\\\\]|\\\\.)*\"");
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private RuleReads() {
    }

    /** The metrics {@code rule} reads, in the order they first appear. */
    static Set<Metric> of(Rule rule) {
        Set<Metric> out = new LinkedHashSet<>();
        collect(rule.when(), out);
        if (rule.keepFiringWhile() != null) {
            collect(rule.keepFiringWhile(), out);
        }
        return out;
    }

    private static void collect(String canonical, Set<Metric> out) {
        Matcher m = NAME.matcher(QUOTED.matcher(canonical).replaceAll(" "));
        while (m.find()) {
            String name = m.group();
            Metric metric = Metric.byField(name);
            if (metric != null) {
                out.add(metric);
                continue;
            }
            DerivedMetric d = DerivedMetric.byField(name);
            if (d != null) {
                out.addAll(sources(d));
            }
        }
    }

    /** What a derived metric is computed from; a derived metric not listed here counts as reading nothing raw. */
    static Set<Metric> sources(DerivedMetric d) {
        return switch (d) {
            case IDLE -> Set.of(Metric.GPU_UTIL);
            case SM_ACTIVE_OF_BUSY -> Set.of(Metric.GPU_UTIL, Metric.SM_ACTIVE);
            case ACHIEVED_FLOPS, EFFECTIVE_COMPUTE_RATIO -> Set.of(Metric.TOKENS_PER_SEC);
            case HARDWARE_COMPUTE_RATIO -> Set.of(Metric.TENSOR_ACTIVE);
            case COMPUTE_RATIO_MISMATCH -> Set.of(Metric.TOKENS_PER_SEC, Metric.TENSOR_ACTIVE);
            case COST_PER_TOKEN, COST_PER_M_TOKENS -> Set.of(Metric.TOKENS_PER_SEC);
            case ALLOCATION_RATE -> Set.of(Metric.CARDS_ALLOCATED, Metric.CARDS_TOTAL);
            case PREEMPTIONS_PER_HOUR -> Set.of(Metric.PREEMPTIONS);
            case USED_CARDS -> Set.of(Metric.GPU_UTIL);
            case USED_MEM_BYTES -> Set.of(Metric.MEM_USED_BYTES);
            case USED_OF_ALLOCATED -> Set.of(Metric.GPU_UTIL, Metric.CARDS_ALLOCATED);
            default -> Set.of();
        };
    }
}
