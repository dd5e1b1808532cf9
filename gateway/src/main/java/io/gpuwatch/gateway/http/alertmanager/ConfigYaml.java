package io.gpuwatch.gateway.http.alertmanager;

import io.gpuwatch.gateway.inhibit.InhibitRule;
import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.route.Route;
import io.gpuwatch.gateway.route.RoutingConfig;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.common.FlowStyle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The gateway's routing written as an Alertmanager config, for {@code /api/v2/status}'s {@code config.original}:
 * Grafana reads it with Alertmanager's own config parser to show the notification policies and contact points,
 * so it must be a config Alertmanager accepts. What Alertmanager cannot say is left out and told in a comment at
 * the top: a group or repeat interval of zero (Alertmanager refuses zero; gpuwatch sends each change at once) and
 * the mute and active time intervals. Owner routes appear as the root's first children with {@code continue}.
 */
final class ConfigYaml {
    private ConfigYaml() {
    }

    /** The config of {@code routing} sending to the receivers it names and {@code receivers}. */
    static String of(RoutingConfig routing, Collection<String> receivers) {
        List<String> notes = new ArrayList<>();
        Map<String, Object> root = route(routing.root(), true, notes);
        if (!routing.owners().isEmpty()) {
            List<Object> children = new ArrayList<>();
            for (Entry<String, Route> owner : new TreeMap<>(routing.owners()).entrySet()) {
                Map<String, Object> r = route(owner.getValue(), false, notes);
                List<String> matchers = new ArrayList<>();
                matchers.add(Matcher.equal("owner", owner.getKey()).toString());
                owner.getValue().matchers().forEach(m -> matchers.add(m.toString()));
                r.put("matchers", matchers);
                r.put("continue", true);
                children.add(r);
            }
            @SuppressWarnings("unchecked")
            List<Object> tree = (List<Object>) root.getOrDefault("routes", List.of());
            children.addAll(tree);
            root.put("routes", children);
        }
        TreeSet<String> names = new TreeSet<>(routing.receivers());
        names.addAll(receivers);
        List<Object> receiverList = new ArrayList<>();
        names.forEach(n -> receiverList.add(Map.of("name", n)));
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("route", root);
        config.put("receivers", receiverList);
        if (!routing.inhibitRules().isEmpty()) {
            List<Object> rules = new ArrayList<>();
            for (InhibitRule rule : routing.inhibitRules()) {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("source_matchers", rule.source().stream().map(Matcher::toString).toList());
                r.put("target_matchers", rule.target().stream().map(Matcher::toString).toList());
                r.put("equal", new ArrayList<>(rule.equal()));
                rules.add(r);
            }
            config.put("inhibit_rules", rules);
        }
        StringBuilder out = new StringBuilder("# gpuwatch's routing in Alertmanager's form, to read; gpuwatch "
                + "routes with its own alerting config\n");
        notes.forEach(n -> out.append("# ").append(n).append('\n'));
        Dump dump = new Dump(DumpSettings.builder().setDefaultFlowStyle(FlowStyle.BLOCK).build());
        return out.append(dump.dumpToString(config)).toString();
    }

    private static Map<String, Object> route(Route r, boolean root, List<String> notes) {
        Map<String, Object> out = new LinkedHashMap<>();
        // a route that only escalates has no receiver in Alertmanager's terms; it would take its parent's
        if (!r.receiver().equals(Route.NONE)) {
            out.put("receiver", r.receiver());
        }
        // a list of its own per route, so the YAML holds no anchors and aliases
        out.put("group_by", new ArrayList<>(r.groupBy().all() ? List.of("...") : r.groupBy().labels()));
        if (!root && !r.matchers().isEmpty()) {
            out.put("matchers", r.matchers().stream().map(Matcher::toString).toList());
        }
        if (!root && r.continueMatching()) {
            out.put("continue", true);
        }
        out.put("group_wait", duration(r.groupWait()));
        if (r.groupInterval().isZero()) {
            notes.add(r.id() + ": group_interval 0s (each change is sent at once) is left out");
        } else {
            out.put("group_interval", duration(r.groupInterval()));
        }
        if (r.repeatInterval().isZero()) {
            notes.add(r.id() + ": repeat_interval 0s is left out");
        } else {
            out.put("repeat_interval", duration(r.repeatInterval()));
        }
        if (!r.muteTimeIntervals().isEmpty() || !r.activeTimeIntervals().isEmpty()) {
            notes.add(r.id() + ": its mute and active time intervals are left out");
        }
        if (!r.routes().isEmpty()) {
            List<Object> children = new ArrayList<>();
            r.routes().forEach(c -> children.add(route(c, false, notes)));
            out.put("routes", children);
        }
        return out;
    }

    /** A duration as Prometheus writes one: {@code 4h}, {@code 1h30m}, {@code 30s}, {@code 0s}. */
    static String duration(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        StringBuilder b = new StringBuilder();
        long ms = d.toMillis();
        long[] sizes = {86_400_000L * 7, 86_400_000L, 3_600_000L, 60_000L, 1_000L, 1L};
        String[] units = {"w", "d", "h", "m", "s", "ms"};
        for (int i = 0; i < sizes.length; i++) {
            if (ms >= sizes[i]) {
                b.append(ms / sizes[i]).append(units[i]);
                ms %= sizes[i];
            }
        }
        return b.toString();
    }
}
