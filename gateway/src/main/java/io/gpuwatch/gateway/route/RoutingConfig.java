package io.gpuwatch.gateway.route;

import io.gpuwatch.gateway.inhibit.InhibitRule;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A loaded alerting config: the routing tree, the owner routes, the named time intervals and the inhibition
 * rules (the built-in ones included unless the file turns them off).
 *
 * <p>Owner routing composes with the tree like an extra first child of the root with {@code continue: true}:
 * an alert whose {@code owner} label names an entry of {@code owners:} goes to that owner's receiver, grouped
 * and timed as the root says, and then through the tree as usual. To send an owner's alerts only to the
 * owner, write a route with the matcher {@code owner="…"} in the tree instead.
 */
public record RoutingConfig(Route root, Map<String, Route> owners, Map<String, TimeInterval> timeIntervals,
                            List<InhibitRule> inhibitRules, Map<String, EscalationPolicy> escalationPolicies) {
    public RoutingConfig {
        owners = Map.copyOf(owners);
        escalationPolicies = Map.copyOf(escalationPolicies);
        timeIntervals = Map.copyOf(timeIntervals);
        inhibitRules = List.copyOf(inhibitRules);
    }

    /** A config without escalation policies. */
    public RoutingConfig(Route root, Map<String, Route> owners, Map<String, TimeInterval> timeIntervals,
                         List<InhibitRule> inhibitRules) {
        this(root, owners, timeIntervals, inhibitRules, Map.of());
    }

    /**
     * The escalation policy an alert with {@code labels} is escalated by: the first its routes name, in the order
     * of {@link #routes}; empty when none names one.
     */
    public Optional<String> escalation(Map<String, String> labels) {
        for (Route r : routes(labels)) {
            if (r.escalation().isPresent()) {
                return r.escalation();
            }
        }
        return Optional.empty();
    }

    /** The routes an alert with {@code labels} goes to, in order: its owner's route first, then the tree's. */
    public List<Route> routes(Map<String, String> labels) {
        List<Route> out = new ArrayList<>();
        String owner = labels.get("owner");
        if (owner != null && owners.containsKey(owner)) {
            out.add(owners.get(owner));
        }
        out.addAll(root.match(labels));
        return out;
    }

    /** The receiver names the config sends to, sorted. */
    public List<String> receivers() {
        TreeSet<String> names = new TreeSet<>();
        root.flatten().forEach(r -> names.add(r.receiver()));
        owners.values().forEach(r -> names.add(r.receiver()));
        escalationPolicies.values().forEach(p -> p.steps().forEach(s -> names.addAll(s.via())));
        names.remove(Route.NONE);
        return List.copyOf(names);
    }

    /** The tree shipped with gpuwatch (examples/alerting/routes.yml), used when no config is given. */
    public static RoutingConfig defaults() {
        RoutingLoad load = parse("<built-in routes>", DefaultRoutes.YAML, null);
        if (!load.ok()) {
            throw new IllegalStateException("the built-in routes do not load: " + load.diagnostics());
        }
        return load.config();
    }

    /**
     * Reads a config from {@code text}, naming {@code file} in its diagnostics. Every receiver the config names
     * must be in {@code receivers}; null skips that check.
     */
    public static RoutingLoad parse(String file, String text, Set<String> receivers) {
        return new ConfigReader(file, text, receivers).read();
    }

    /** Reads a config file; a file that cannot be read is a diagnostic too. */
    public static RoutingLoad load(Path file, Set<String> receivers) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return RoutingLoad.failed(file.toString(), "cannot read: no such file");
        } catch (IOException e) {
            return RoutingLoad.failed(file.toString(), "cannot read: " + e.getMessage());
        }
        return parse(file.toString(), text, receivers);
    }
}
