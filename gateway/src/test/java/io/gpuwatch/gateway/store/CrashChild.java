package io.gpuwatch.gateway.store;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.rules.eval.AlertState;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;

/**
 * The process {@link StoreCrashTest} kills: writes an alert, its notification, a silence and an ack per
 * transaction, delivers an earlier notification in every other one, and prints each transaction only after
 * it committed: {@code committed <n> <outbox id> <sent outbox id or -1>}.
 */
public final class CrashChild {
    private CrashChild() {
    }

    static String fingerprint(long n) {
        return String.format("%016x", n);
    }

    static Alert alert(long n, long at) {
        return new Alert(fingerprint(n), "GpuHot", "page", Map.of("alertname", "GpuHot", "n", Long.toString(n)),
                Map.of("summary", "card " + n + " is hot"), at, at, 0, AlertState.FIRING);
    }

    static String payload(long n) {
        return "{\"event_action\":\"trigger\",\"dedup_key\":\"" + fingerprint(n) + "\",\"n\":" + n + "}";
    }

    static Silence silence(long n, Instant at) {
        return new Silence("s-" + n, List.of(Matcher.equal("n", Long.toString(n))), at, at.plusSeconds(3600),
                "crash-child", "silence " + n, at);
    }

    public static void main(String[] args) {
        Path file = Path.of(args[0]);
        long start = Long.parseLong(args[1]);
        PrintStream out = System.out;
        InstantSource clock = InstantSource.system();
        try (Store store = Store.open(file, clock, Backoff.standard())) {
            for (long n = start; ; n++) {
                long k = n;
                long[] ids = store.transact(s -> {
                    Instant now = clock.instant();
                    s.alerts().save(alert(k, now.toEpochMilli()), now);
                    long queued = s.outbox().enqueue("pagerduty", fingerprint(k), payload(k));
                    s.silences().save(silence(k, now));
                    s.acks().add(new Acknowledgement(fingerprint(k), "oncall", now, "ack " + k, "api"));
                    long sent = -1;
                    for (OutboxEntry e : s.outbox().claim(1, Duration.ofMinutes(10))) {
                        // odd rounds leave their claim open, like a send in flight when the process dies
                        if (k % 2 == 0 && s.outbox().complete(e)) {
                            s.notificationLog().record(new NotificationLogEntry(e.receiver(), e.key(),
                                    NotificationLogEntry.hash(List.of(e.key())), NotificationLogEntry.hash(List.of()),
                                    now, List.of(e.key())));
                            sent = e.id();
                        }
                    }
                    return new long[] {queued, sent};
                });
                out.println("committed " + k + " " + ids[0] + " " + ids[1]);
                out.flush();
            }
        }
    }
}
