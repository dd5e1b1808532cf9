package io.gpuwatch.probe.sched;

import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Reads a {@link SchedSource} every interval and hands its frames on. A read that fails (the scheduler down, an
 * answer it cannot read) is logged and reported with one {@code probe_degraded} event when the source starts
 * failing, not at every interval; the producer keeps reading and says so when the source works again.
 */
public final class SchedProducer {
    private static final Logger LOG = Logger.getLogger(SchedProducer.class.getName());

    private final Vertx vertx;
    private final Context context;
    private final SchedSource source;
    private final Duration interval;
    private final LongSupplier clockMs;
    private final Consumer<Frame> out;
    private long timer = -1;
    private boolean inFlight;
    private boolean failing;

    /** @param out gets the frames, on this producer's context */
    public SchedProducer(Vertx vertx, SchedSource source, Duration interval, LongSupplier clockMs,
                         Consumer<Frame> out) {
        this.vertx = vertx;
        this.context = vertx.getOrCreateContext();
        this.source = source;
        this.interval = interval;
        this.clockMs = clockMs;
        this.out = out;
    }

    /** Starts the source, reads now, then every interval. */
    public Future<Void> start() {
        Promise<Void> started = Promise.promise();
        context.runOnContext(v -> source.start().onComplete(ar -> {
            if (ar.failed()) {
                report("cannot start " + source.describe() + ": " + ar.cause().getMessage());
            }
            timer = vertx.setPeriodic(interval.toMillis(), id -> readOnce());
            readOnce().onComplete(x -> started.complete());
        }));
        return started.future();
    }

    /** One read now; completes when its frames are out or its failure reported, and never fails. */
    public Future<Void> readOnce() {
        Promise<Void> done = Promise.promise();
        context.runOnContext(v -> {
            if (inFlight) {
                done.complete();
                return;
            }
            inFlight = true;
            source.read(clockMs.getAsLong()).onComplete(ar -> {
                inFlight = false;
                if (ar.succeeded()) {
                    if (failing) {
                        failing = false;
                        LOG.info(() -> source.describe() + " works again");
                    }
                    ar.result().forEach(out);
                } else if (!failing) {
                    failing = true;
                    report(source.describe() + " failing: " + ar.cause().getMessage());
                } else {
                    LOG.fine(() -> source.describe() + " still failing: " + ar.cause().getMessage());
                }
                done.complete();
            });
        });
        return done.future();
    }

    /** Stops reading and the source. */
    public Future<Void> stop() {
        Promise<Void> stopped = Promise.promise();
        context.runOnContext(v -> {
            if (timer >= 0) {
                vertx.cancelTimer(timer);
                timer = -1;
            }
            source.close().onComplete(ar -> stopped.complete());
        });
        return stopped.future();
    }

    private void report(String text) {
        LOG.warning(text);
        out.accept(new Event(0, clockMs.getAsLong(), null, "probe_degraded", null, text, null));
    }

    /** The frames of readings that carry whole queues: one {@code sched} frame each, then the drain events. */
    public static List<Frame> frames(List<QueueReading> readings, DrainNotices drains, long nowMs) {
        List<Frame> frames = new ArrayList<>();
        for (QueueReading r : readings) {
            frames.add(QueueFigures.frame(r, nowMs));
        }
        frames.addAll(drains.observe(readings, nowMs));
        return frames;
    }
}
