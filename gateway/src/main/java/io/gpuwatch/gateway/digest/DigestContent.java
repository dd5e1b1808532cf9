package io.gpuwatch.gateway.digest;

import io.gpuwatch.gateway.alert.Alert;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one digest tells of the period {@code [from, to)}: alerts firing at its end by severity (page first,
 * {@code notice} and {@code inspect} left to {@code inspections}), alerts resolved in it, the rules that changed
 * state most often in it, the figures of each business and each owner, and how many alerts fired in each of
 * {@code firingSeries.length} equal slices of it. {@code priced} says whether a pricing was given at all.
 */
public record DigestContent(Instant from, Instant to, ZoneId zone, Map<String, List<Alert>> firingBySeverity,
                            List<Alert> resolved, List<RuleCount> noisy, List<Alert> inspections,
                            List<BusinessMeter.Figures> businesses, List<BusinessMeter.Figures> owners,
                            boolean priced, double[] firingSeries) {
    /** A rule and how many times its alerts started or stopped firing in the period. */
    public record RuleCount(String rule, int transitions) {
    }

    public DigestContent {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(zone, "zone");
        firingBySeverity = Collections.unmodifiableMap(new LinkedHashMap<>(firingBySeverity));
        resolved = List.copyOf(resolved);
        noisy = List.copyOf(noisy);
        inspections = List.copyOf(inspections);
        businesses = List.copyOf(businesses);
        owners = List.copyOf(owners);
        firingSeries = firingSeries.clone();
    }

    /** How many alerts fire at the end of the period, inspections left out. */
    public int firing() {
        return firingBySeverity.values().stream().mapToInt(List::size).sum();
    }
}
