package io.gpuwatch.cli.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One SIGKILL of a trial.
 *
 * @param atMs when it is armed, ms after the run's start: a random kill lands then, a mid-send kill lands on the
 *             first notification after it (while that send is in flight), an outage kill starts the outage then
 * @param gateway which gateway of the run is killed (0 without a cluster)
 * @param outageMs for an outage kill, how long the receiver answers 503
 * @param killAfterMs for an outage kill, how far into the outage the kill lands
 */
record Kill(Kind kind, long atMs, int gateway, long outageMs, long killAfterMs) {
    /** How long a mid-send kill waits for a notification to hold before it lands anyway. */
    static final long SEND_WAIT_MS = 20_000;
    /** A mid-send kill is armed this long before a moment the clean run sent something. */
    private static final long ARM_BEFORE_SEND_MS = 5000;

    /** Where the kill lands. */
    enum Kind {
        RANDOM("random"), MID_SEND("mid-send"), OUTAGE("outage");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** Until when this kill may still be under way: a mid-send kill waiting for a send, an outage lasting. */
    private long busyUntilMs() {
        return switch (kind) {
            case RANDOM -> atMs;
            case MID_SEND -> atMs + SEND_WAIT_MS;
            case OUTAGE -> atMs + Math.max(outageMs, killAfterMs);
        };
    }

    /**
     * The kills of one trial: {@code count} of them, their kinds in turn from the trial's number (so every kind
     * comes up across trials), at random moments in {@code [fromMs, toMs]} at least {@code gapMs} apart where that
     * fits; mid-send kills are armed shortly before a moment the clean run sent something, so a send is due.
     *
     * @param cleanSends when the clean run's notifications arrived, ms after its start
     */
    static List<Kill> plan(SplittableRandom random, int trial, int count, int gateways, long fromMs, long toMs,
                           long gapMs, List<Long> cleanSends) {
        List<Long> sendable = cleanSends.stream().filter(t -> t - ARM_BEFORE_SEND_MS >= fromMs && t <= toMs).toList();
        List<Kill> best = List.of();
        for (int attempt = 0; attempt < 200; attempt++) {
            List<Kill> kills = new ArrayList<>();
            for (int j = 0; j < count; j++) {
                Kind kind = Kind.values()[(trial + j) % Kind.values().length];
                int gateway = random.nextInt(gateways);
                long outage = kind == Kind.OUTAGE ? 20_000 + random.nextLong(40_000) : 0;
                long killAfter = kind == Kind.OUTAGE ? outage / 4 + random.nextLong(outage / 2) : 0;
                // an outage ends within the window, so the trial sees the receiver back before the run ends
                long latest = Math.max(fromMs, toMs - outage);
                long at = fromMs + (long) (random.nextDouble() * (latest - fromMs));
                if (kind == Kind.MID_SEND && !sendable.isEmpty()) {
                    at = sendable.get(random.nextInt(sendable.size())) - ARM_BEFORE_SEND_MS;
                }
                kills.add(new Kill(kind, at, gateway, outage, killAfter));
            }
            kills.sort(Comparator.comparingLong(Kill::atMs));
            best = kills;
            if (spaced(kills, gapMs)) {
                break;
            }
        }
        return best;
    }

    private static boolean spaced(List<Kill> kills, long gapMs) {
        for (int i = 1; i < kills.size(); i++) {
            if (kills.get(i).atMs - kills.get(i - 1).busyUntilMs() < gapMs) {
                return false;
            }
        }
        return true;
    }
}
