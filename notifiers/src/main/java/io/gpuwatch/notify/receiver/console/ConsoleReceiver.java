package io.gpuwatch.notify.receiver.console;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.vertx.core.Future;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Writes one line per alert for a human watching a terminal or a log:
 * {@code 2026-12-03T09:01:02Z FIRING   page  xid-fallen-off-bus  node=node-01 uuid=GPU-1  GPU-1 on node-01 fell off the bus (XID 79)},
 * stamped with the time it is printed ({@code (active since …)} follows when the alert became active earlier,
 * as after a {@code for}), and for a resolved alert its end time and {@code (after 2m10s)}. Columns stay aligned; control characters in
 * labels or annotations become spaces, so one alert is always exactly one line and cannot drive the terminal.
 * Colour (ANSI) only when asked for.
 */
public final class ConsoleReceiver implements Receiver {
    private static final String RESET = "\u001b[0m";
    private static final String RED = "\u001b[1;31m";
    private static final String YELLOW = "\u001b[33m";
    private static final String GREEN = "\u001b[32m";
    private static final int STATUS_WIDTH = "RESOLVED".length();

    private final String name;
    private final PrintStream out;
    private final boolean colour;
    private final InstantSource clock;

    /** A plain receiver named {@code console} on the system clock. */
    public ConsoleReceiver(PrintStream out) {
        this("console", out, false, InstantSource.system());
    }

    public ConsoleReceiver(String name, PrintStream out, boolean colour, InstantSource clock) {
        this.name = Objects.requireNonNull(name, "name");
        this.out = Objects.requireNonNull(out, "out");
        this.colour = colour;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Future<Void> send(List<Notification> batch) {
        StringBuilder text = new StringBuilder();
        for (Notification n : batch) {
            text.append(line(n)).append(System.lineSeparator());
        }
        // One print per batch keeps a group's lines together when several receivers share the stream.
        out.print(text);
        if (out.checkError()) {
            return Future.failedFuture(new DeliveryFailure(name, 1, "the output stream reported an error", false));
        }
        return Future.succeededFuture();
    }

    private String line(Notification n) {
        boolean firing = n.status() == Notification.Status.FIRING;
        Map<String, String> labels = n.labels();
        String severity = labels.getOrDefault("severity", "-");
        StringBuilder sb = new StringBuilder();
        Instant printed = firing ? clock.instant() : n.endsAt();
        sb.append(timestamp(printed)).append(' ');
        String word = n.status().name();
        sb.append(colour ? paint(word, firing, severity) : word)
                .append(" ".repeat(STATUS_WIDTH - word.length() + 1));
        sb.append(clean(severity)).append("  ").append(clean(labels.getOrDefault("alertname", "-")));
        StringBuilder rest = new StringBuilder();
        new TreeMap<>(labels).forEach((k, v) -> {
            if (!k.equals("alertname") && !k.equals("severity")) {
                rest.append(rest.length() == 0 ? "" : " ").append(clean(k)).append('=').append(value(v));
            }
        });
        if (rest.length() > 0) {
            sb.append("  ").append(rest);
        }
        String text = n.annotations().getOrDefault("summary", n.annotations().getOrDefault("description", ""));
        if (!text.isBlank()) {
            sb.append("  ").append(clean(text).trim());
        }
        if (firing && Duration.between(n.startsAt(), printed).getSeconds() >= 1) {
            sb.append(" (active since ").append(timestamp(n.startsAt())).append(')');
        }
        if (!firing) {
            sb.append(" (after ").append(duration(Duration.between(n.startsAt(), n.endsAt()))).append(')');
        }
        return sb.toString();
    }

    private static String paint(String word, boolean firing, String severity) {
        String code = !firing ? GREEN : severity.equals("page") ? RED : YELLOW;
        return code + word + RESET;
    }

    private static String timestamp(Instant t) {
        return DateTimeFormatter.ISO_INSTANT.format(t.truncatedTo(ChronoUnit.SECONDS));
    }

    /** Go-style short durations: {@code 850ms}, {@code 45s}, {@code 2m10s}, {@code 1h5s}. */
    static String duration(Duration d) {
        if (d.isNegative()) {
            d = Duration.ZERO;
        }
        if (d.compareTo(Duration.ofSeconds(1)) < 0 && !d.isZero()) {
            return d.toMillis() + "ms";
        }
        long s = d.getSeconds();
        StringBuilder sb = new StringBuilder();
        if (s >= 3600) {
            sb.append(s / 3600).append('h');
        }
        if (s % 3600 >= 60) {
            sb.append(s % 3600 / 60).append('m');
        }
        if (s % 60 > 0 || sb.length() == 0) {
            sb.append(s % 60).append('s');
        }
        return sb.toString();
    }

    private static String value(String v) {
        String c = clean(v);
        if (!c.isEmpty() && c.chars().noneMatch(ch -> ch == ' ' || ch == '"' || ch == '=')) {
            return c;
        }
        return '"' + c.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private static String clean(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> sb.appendCodePoint(Character.isISOControl(cp) ? ' ' : cp));
        return sb.toString();
    }
}
