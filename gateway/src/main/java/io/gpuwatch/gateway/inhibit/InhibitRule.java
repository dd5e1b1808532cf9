package io.gpuwatch.gateway.inhibit;

import io.gpuwatch.gateway.match.Matcher;

import java.util.List;
import java.util.Map;

/**
 * While an alert matching {@code source} fires, alerts matching {@code target} whose {@code equal} labels have the
 * same values (a missing label counts as empty) are inhibited.
 */
public record InhibitRule(String name, List<Matcher> source, List<Matcher> target, List<String> equal) {
    /** A silent node (rule {@code node-silent}, node scope) hides the alerts of its cards, which cannot resolve. */
    public static final InhibitRule NODE_SILENT = new InhibitRule("node-silent",
            List.of(Matcher.equal("alertname", "node-silent")), List.of(Matcher.regex("uuid", ".+")),
            List.of("node"));
    /** A card that fell off the bus (XID 79) hides that card's other alerts, which are its consequences. */
    public static final InhibitRule GPU_LOST = new InhibitRule("gpu-lost",
            List.of(Matcher.equal("alertname", "xid-fallen-off-bus")), List.of(Matcher.regex("uuid", ".+")),
            List.of("node", "uuid"));
    /** The rules that apply unless a config turns them off. */
    public static final List<InhibitRule> BUILT_IN = List.of(NODE_SILENT, GPU_LOST);

    public InhibitRule {
        source = List.copyOf(source);
        target = List.copyOf(target);
        equal = List.copyOf(equal);
    }

    /** The values of the {@code equal} labels, in order, empty for missing ones. */
    List<String> equalValues(Map<String, String> labels) {
        return equal.stream().map(l -> labels.getOrDefault(l, "")).toList();
    }
}
