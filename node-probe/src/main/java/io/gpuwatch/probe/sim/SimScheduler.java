package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.scenario.Incident;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * A scheduler adapter's view of the simulated fleet: one queue for training and one for inference. Running tasks
 * are what the nodes run; a few training tasks wait at a time, for about a minute, and
 * {@link Incident.QueueLoad} incidents pile tasks up (waits grow while nothing starts) or burst and drain them.
 * Tasks start oldest first.
 */
final class SimScheduler {
    /** The producer name the scheduler's frames come from. */
    static final String PRODUCER = "sim-scheduler";
    private static final long BASELINE_STEP_MS = 2 * 60_000;
    private static final long DRAIN_MS = 2 * 60_000;
    private static final int REQUESTED_CARDS = 8;

    /** One queue: the pending tasks' enqueue times, oldest first, and the incidents that load it. */
    private static final class Queue {
        final String name;
        final String owner;
        final String business;
        final boolean training;
        final Deque<long[]> pending = new ArrayDeque<>();
        final List<Incident.QueueLoad> loads = new ArrayList<>();
        long enqueued;

        Queue(String name, String owner, String business, boolean training) {
            this.name = name;
            this.owner = owner;
            this.business = business;
            this.training = training;
        }
    }

    private final long startMs;
    private final long seed;
    private final int cardsTotal;
    private final List<Queue> queues = new ArrayList<>();
    private final Supplier<Map<String, SchedTask>> running;

    /**
     * @param running what the fleet runs now, by task
     */
    SimScheduler(long startMs, long seed, int cardsTotal, List<Incident> incidents,
                 Supplier<Map<String, SchedTask>> running) {
        this.startMs = startMs;
        this.seed = seed;
        this.cardsTotal = cardsTotal;
        this.running = running;
        queues.add(new Queue("training", "team-llm", "chat-pretrain", true));
        queues.add(new Queue("inference", "team-serving", "chat", false));
        for (Incident i : incidents) {
            if (i instanceof Incident.QueueLoad q) {
                queues.stream().filter(x -> x.name.equals(q.queue())).forEach(x -> x.loads.add(q));
            }
        }
    }

    /** The queues' readings at elapsed time {@code elapsed}; {@code serving} tells inference tasks apart. */
    List<Sched> frames(long elapsed, java.util.function.Predicate<String> serving) {
        Map<String, SchedTask> now = running.get();
        List<Sched> out = new ArrayList<>(queues.size());
        for (Queue q : queues) {
            int target = 0;
            for (Incident.QueueLoad load : q.loads) {
                target += extra(load, elapsed);
            }
            while (q.pending.size() < target) {
                q.pending.addLast(new long[]{elapsed, q.enqueued++});
            }
            while (q.pending.size() > target) {
                q.pending.removeFirst();
            }
            List<SchedTask> tasks = new ArrayList<>();
            int allocated = 0;
            for (SchedTask t : now.values()) {
                if (serving.test(t.task()) != q.training) {
                    tasks.add(t);
                    allocated += t.cards().size();
                }
            }
            int running = tasks.size();
            List<Double> waits = new ArrayList<>();
            // the day's usual few waiting tasks, which start after a minute or so
            SplittableRandom draw = usualDraw(elapsed);
            int usual = q.training ? draw.nextInt(3) : 0;
            long window = elapsed / BASELINE_STEP_MS;
            for (int i = 0; i < usual; i++) {
                tasks.add(new SchedTask(q.name + "-queued-" + window + "-" + i, q.owner, q.business, List.of(),
                        "pending", REQUESTED_CARDS));
            }
            double usualWait = usual == 0 ? 0 : draw.nextDouble(45, 75);
            for (long[] p : q.pending) {
                waits.add((elapsed - p[0]) / 1000.0);
                tasks.add(new SchedTask(q.name + "-pending-" + p[1], q.owner, q.business, List.of(), "pending",
                        REQUESTED_CARDS));
            }
            MetricValues values = MetricValues.builder()
                    .set(Metric.PENDING, q.pending.size() + usual)
                    .set(Metric.RUNNING, running)
                    .set(Metric.WAIT_P50_S, Math.round(waits.isEmpty() ? usualWait : waits.get(waits.size() / 2)))
                    .set(Metric.WAIT_MAX_S, Math.round(waits.isEmpty() ? usualWait : waits.get(0)))
                    .set(Metric.PREEMPTIONS, 0)
                    .set(Metric.CARDS_ALLOCATED, allocated)
                    .set(Metric.CARDS_TOTAL, q.training ? cardsTotal : allocated)
                    .build();
            out.add(new Sched(0, startMs + elapsed, q.name, values, tasks));
        }
        return out;
    }

    /** The draw of the usual queue, anew each two minutes, by the seed. */
    private SplittableRandom usualDraw(long elapsed) {
        return new SplittableRandom(seed ^ (elapsed / BASELINE_STEP_MS) * 0x9E3779B97F4A7C15L);
    }

    /** Tasks an incident adds: a pile-up that stays, or a burst that peaks early and drains by the end. */
    private static int extra(Incident.QueueLoad load, long elapsed) {
        long from = load.at().toMillis();
        long len = load.duration().toMillis();
        long t = elapsed - from;
        if (t < 0) {
            return 0;
        }
        double share;
        if (load.drains()) {
            long peak = Math.max(1, len / 5);
            share = t < peak ? (double) t / peak : t < len ? 1 - (double) (t - peak) / (len - peak) : 0;
        } else {
            long rise = Math.max(1, len / 4);
            share = t < rise ? (double) t / rise : t < len ? 1 : 1 - (double) (t - len) / DRAIN_MS;
        }
        return (int) Math.round(Math.max(0, share) * load.pending());
    }
}
