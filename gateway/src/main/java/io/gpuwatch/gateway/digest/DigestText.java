package io.gpuwatch.gateway.digest;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.notify.render.Report;
import io.gpuwatch.notify.render.Sparkline;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Words a digest's content as a {@link Report}: times in the channel's zone, one line per alert
 * ({@code [page] xid-fallen-off-bus node=n1 uuid=GPU-1 since 08:12 — summary}), and the business section only
 * when some business was seen in the period (cost per token only with a pricing).
 */
public final class DigestText {
    private static final Set<String> RULE_LABELS = Set.of("alertname", "severity", "layer");
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT);
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT);
    private static final DateTimeFormatter DAY_TIME = DateTimeFormatter.ofPattern("MM-dd HH:mm", Locale.ROOT);

    private DigestText() {
    }

    /** The report of {@code c}, showing the chart at {@code chartUrl} (null: the sparkline only). */
    public static Report render(DigestContent c, String chartUrl, String currency) {
        ZoneId zone = c.zone();
        String title = "gpuwatch digest: " + c.firing() + " firing, " + c.resolved().size() + " resolved, "
                + c.inspections().size() + " to inspect";
        ZonedDateTime from = c.from().atZone(zone);
        ZonedDateTime to = c.to().atZone(zone);
        String period = from.format(DAY) + " – " + (from.toLocalDate().equals(to.toLocalDate()) ? to.format(TIME)
                : to.format(DAY)) + " " + (zone.equals(ZoneOffset.UTC) ? "UTC" : zone.getId());
        double max = 0;
        for (double v : c.firingSeries()) {
            max = Math.max(max, v);
        }
        String trend = "firing alerts " + Sparkline.of(c.firingSeries()) + " (max " + (long) max + ")";

        List<Report.Section> sections = new ArrayList<>();
        List<String> firing = new ArrayList<>();
        List<String> counts = new ArrayList<>();
        for (Map.Entry<String, List<Alert>> e : c.firingBySeverity().entrySet()) {
            counts.add(e.getKey() + " " + e.getValue().size());
            for (Alert a : e.getValue()) {
                firing.add(line(a, "since " + time(a.activeSince(), c.to(), zone)));
            }
        }
        sections.add(new Report.Section("Firing" + (counts.isEmpty() ? "" : " (" + String.join(", ", counts) + ")"),
                firing, "none"));
        List<String> resolved = new ArrayList<>();
        for (Alert a : c.resolved()) {
            resolved.add(line(a, "resolved " + time(a.resolvedAt(), c.to(), zone) + " after "
                    + Durations.format(Duration.ofMillis(a.resolvedAt() - a.activeSince()))));
        }
        sections.add(new Report.Section("Resolved in the period (" + resolved.size() + ")", resolved, "none"));
        List<String> noisy = c.noisy().stream().map(r -> r.rule() + ": " + r.transitions()
                + (r.transitions() == 1 ? " change" : " changes")).toList();
        sections.add(new Report.Section("Noisiest rules", noisy, "none"));
        List<String> inspect = new ArrayList<>();
        for (Alert a : c.inspections()) {
            inspect.add(line(a, "since " + time(a.activeSince(), c.to(), zone)));
        }
        sections.add(new Report.Section("To inspect (" + inspect.size() + ")", inspect, "none"));
        if (!c.businesses().isEmpty()) {
            sections.add(new Report.Section("Businesses", c.businesses().stream()
                    .map(b -> business(b, c.priced(), currency)).toList(), ""));
        }
        if (!c.owners().isEmpty()) {
            sections.add(new Report.Section("Owners", c.owners().stream().map(o -> usage(new StringBuilder(o.business())
                    .append(": ").append(number(o.idleCardHours())).append(" idle of ").append(number(o.cardHours()))
                    .append(" card-hours"), o).toString()).toList(), ""));
        }
        return new Report(title, period, sections, trend, chartUrl);
    }

    private static String business(BusinessMeter.Figures b, boolean priced, String currency) {
        StringBuilder sb = new StringBuilder(b.business()).append(": ")
                .append(number(b.idleCardHours())).append(" idle of ").append(number(b.cardHours()))
                .append(" card-hours");
        if (priced) {
            double perMillion = b.costPerMillionTokens();
            if (!Double.isNaN(perMillion)) {
                sb.append(", ").append(String.format(Locale.ROOT, "%.4f", perMillion))
                        .append(currency.isEmpty() ? "" : " " + currency).append(" per 1M tokens");
            } else if (!Double.isNaN(b.cost()) && b.cost() > 0) {
                sb.append(", ").append(String.format(Locale.ROOT, "%.2f", b.cost()))
                        .append(currency.isEmpty() ? "" : " " + currency).append(" (no tokens reported)");
            }
        }
        return usage(sb, b).toString();
    }

    /** Requested against used, effective compute and task success, each only where known. */
    private static StringBuilder usage(StringBuilder sb, BusinessMeter.Figures f) {
        double used = f.requestedVsUsed();
        if (!Double.isNaN(used)) {
            sb.append(", ").append(number(f.usedRequestedCardHours())).append(" of ")
                    .append(number(f.requestedCardHours())).append(" requested card-hours computed (")
                    .append(String.format(Locale.ROOT, "%.2f", used)).append(')');
        }
        double effective = f.effectiveComputeRatio();
        if (!Double.isNaN(effective)) {
            sb.append(", effective compute ").append(String.format(Locale.ROOT, "%.3f", effective))
                    .append(effective < MFU_LOW ? " (below" : effective > MFU_HIGH ? " (above" : " (within")
                    .append(" the 0.38–0.55 of published large-scale training)");
        }
        if (f.ended() > 0) {
            sb.append(", ").append(f.succeeded()).append(" of ").append(f.ended()).append(" ended tasks succeeded");
        }
        return sb;
    }

    /** The model FLOPs utilisation published large-scale training reaches (Llama 3, MegaScale). */
    static final double MFU_LOW = 0.38;
    static final double MFU_HIGH = 0.55;

    private static String line(Alert a, String when) {
        StringBuilder sb = new StringBuilder("[").append(a.severity().isEmpty() ? "none" : a.severity()).append("] ")
                .append(a.rule());
        new TreeMap<>(a.labels()).forEach((k, v) -> {
            if (!RULE_LABELS.contains(k)) {
                sb.append(' ').append(k).append('=').append(v);
            }
        });
        sb.append(' ').append(when);
        String summary = a.annotations().getOrDefault("summary", "");
        if (!summary.isBlank()) {
            sb.append(" — ").append(summary.strip());
        }
        return sb.toString();
    }

    /** {@code HH:mm} on the period's last day, {@code MM-dd HH:mm} before it. */
    private static String time(long epochMs, Instant end, ZoneId zone) {
        ZonedDateTime t = Instant.ofEpochMilli(epochMs).atZone(zone);
        return t.toLocalDate().equals(end.atZone(zone).toLocalDate()) ? t.format(TIME) : t.format(DAY_TIME);
    }

    /** Two decimals below 10, so a short period's fraction of a card-hour does not read as nothing. */
    private static String number(double v) {
        return String.format(Locale.ROOT, v < 10 ? "%.2f" : "%.1f", v);
    }
}
