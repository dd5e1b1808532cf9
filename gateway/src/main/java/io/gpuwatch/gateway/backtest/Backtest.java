package io.gpuwatch.gateway.backtest;

import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.replay.Replay;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.source.Diagnostic;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Replays a recorded trace through the rules at full speed and reports every alert that would have fired. A
 * frame's own time stamp is its virtual arrival time; a hello (and any frame without a stamp) arrives with the
 * next stamped frame of its node, or at the end of the trace when none follows.
 */
public final class Backtest {
    /** How often, in frames, progress is reported. */
    public static final int PROGRESS_EVERY = 10_000;

    /** Told how far the replay has come: frames read so far and the virtual time reached. */
    @FunctionalInterface
    public interface Progress {
        void at(long frames, long virtualMs);
    }

    /** What a backtest found: alerts in the order they fired, every notification, the replay's counts. */
    public record Result(List<Episode> alerts, List<Replay.Sent> sent, Replay.Stats stats,
                         List<Diagnostic> runtimeErrors) {
        public Result {
            alerts = List.copyOf(alerts);
            sent = List.copyOf(sent);
            runtimeErrors = List.copyOf(runtimeErrors);
        }
    }

    private Backtest() {
    }

    /**
     * Replays {@code trace} through {@code rules}; {@code onSent} sees each notification the moment the replay
     * sends it, {@code progress} every {@link #PROGRESS_EVERY} frames and once at the end.
     */
    public static Result run(RuleSet rules, Iterable<TraceFrame> trace, Consumer<Replay.Sent> onSent,
                             Progress progress) {
        return run(rules, Pricing.NONE, trace, onSent, progress);
    }

    /** Like {@link #run(RuleSet, Iterable, Consumer, Progress)}, pricing cards for {@code costPerToken}. */
    public static Result run(RuleSet rules, Pricing pricing, Iterable<TraceFrame> trace, Consumer<Replay.Sent> onSent,
                             Progress progress) {
        Map<String, Integer> open = new HashMap<>();
        List<Episode> episodes = new ArrayList<>();
        Replay replay = new Replay(rules, Replay.DEFAULT_TICK_MS, s -> {
            String fp = s.notification().fingerprint();
            if (s.firing()) {
                open.put(fp, episodes.size());
                episodes.add(new Episode(s.rule(), s.notification().labels().getOrDefault("severity", ""), s.scope(),
                        s.notification().annotations().getOrDefault("summary", ""), s.at(), s.at(), true, 1));
            } else {
                Integer i = open.remove(fp);
                if (i != null) {
                    Episode e = episodes.get(i);
                    episodes.set(i, new Episode(e.rule(), e.severity(), e.labels(), e.summary(), e.from(), s.at(),
                            false, e.notifications() + 1));
                }
            }
            onSent.accept(s);
        });
        replay.fleet().usePricing(pricing);
        Map<String, Deque<TraceFrame>> waiting = new LinkedHashMap<>();
        long frames = 0;
        for (TraceFrame f : trace) {
            long ts = f.ts();
            if (ts == TraceFrame.NO_TS) {
                waiting.computeIfAbsent(f.node(), k -> new ArrayDeque<>()).add(f);
            } else {
                Deque<TraceFrame> before = waiting.remove(f.node());
                if (before != null) {
                    for (TraceFrame w : before) {
                        replay.feed(w.node(), w.frame(), ts);
                    }
                }
                replay.feed(f.node(), f.frame(), ts);
            }
            if (++frames % PROGRESS_EVERY == 0) {
                progress.at(frames, replay.now());
            }
        }
        for (Deque<TraceFrame> rest : waiting.values()) {
            for (TraceFrame w : rest) {
                replay.feed(w.node(), w.frame(), replay.now() == Long.MIN_VALUE ? 0 : replay.now());
            }
        }
        progress.at(frames, replay.now());
        long end = replay.now();
        List<Episode> out = new ArrayList<>();
        for (Episode e : episodes) {
            out.add(e.stillFiring() ? new Episode(e.rule(), e.severity(), e.labels(), e.summary(), e.from(), end,
                    true, e.notifications()) : e);
        }
        return new Result(out, replay.sent(), replay.stats(), replay.runtimeErrors());
    }
}
