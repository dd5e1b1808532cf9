package io.gpuwatch.gateway.checkpoint;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Keeps a gateway's evaluation in {@code DIR/evaluation.jsonl} across restarts: read once at start, written at
 * most {@link #CHANGE_DELAY_MS} after a change that matters (a node's hello, an event, an alert's transition),
 * every {@link #PERIOD_MS} for the windows, and on stop. The state is captured on the event loop that owns it
 * (copies of the arrays, a batch of nodes per turn) and encoded and written on a worker, one write at a time: a
 * change during a write asks for one more write after it, never a queue of them. Writes take at most
 * {@link #DUTY} of the time: after a write that took {@code d} from capture to disk, the next waits at least
 * {@code d × (1 / DUTY − 1)}, so a large fleet is checkpointed less often rather than at a larger cost. A failed
 * write is logged and evaluation goes on.
 */
public final class Checkpoint {
    /** How often the evaluation is written while it runs. */
    public static final long PERIOD_MS = 5_000;
    /** The longest a change that matters waits before it is written. */
    public static final long CHANGE_DELAY_MS = 1_000;
    /**
     * How long after a restart a false condition leaves a restored pending or firing alert as it is: the probes
     * reconnect within seconds and re-send what they buffered while the gateway was down, which the windows then
     * hold; before that, a condition read from windows with a gap would end alerts a clean run keeps.
     */
    public static final long GRACE_MS = 15_000;

    /** The most of the time checkpoint writes may take, capture and write together. */
    public static final double DUTY = 0.05;

    private static final Logger LOG = Logger.getLogger(Checkpoint.class.getName());

    private final Context context;
    private final Path file;
    private final Supplier<Future<Evaluation>> capture;
    private long periodic = -1;
    private long soon = -1;
    private boolean writing;
    private boolean again;
    private Promise<Void> next;
    private long writes;
    /** When (nano time) the duty cycle lets the next write start. */
    private long notBefore = Long.MIN_VALUE;
    private long lastWriteNanos;
    private boolean stopping;

    /**
     * Keeps what {@code capture} completes with in {@code dataDir}; it is called on {@code context} and may take
     * several turns of it.
     */
    public Checkpoint(Context context, Path dataDir, Supplier<Future<Evaluation>> capture) {
        this.context = context;
        this.file = dataDir.resolve(EvaluationFile.FILE_NAME);
        this.capture = capture;
    }

    /** The file the evaluation is kept in. */
    public Path file() {
        return file;
    }

    /**
     * Reads the file on a worker. Always succeeds: a missing file is nothing held, a damaged line is logged with
     * file:line and skipped, an unreadable file is logged and nothing is held.
     */
    public Future<Evaluation> read() {
        return context.executeBlocking(() -> {
            EvaluationFile.Loaded loaded = EvaluationFile.read(file);
            loaded.problems().forEach(LOG::warning);
            return loaded.evaluation();
        }).recover(e -> {
            LOG.warning(file + ": cannot read the evaluation, it starts over: " + e.getMessage());
            return Future.succeededFuture(Evaluation.EMPTY);
        });
    }

    /** Starts the periodic writes; call on the context. */
    public void start() {
        periodic = context.owner().setPeriodic(PERIOD_MS, id -> save());
    }

    /** Something that matters changed: it is written within {@link #CHANGE_DELAY_MS}. Call on the context. */
    public void changed() {
        if (soon < 0 && periodic >= 0) {
            soon = context.owner().setTimer(CHANGE_DELAY_MS, id -> {
                soon = -1;
                save();
            });
        }
    }

    /**
     * Writes the evaluation as it is now; while a write is under way, one more is made after it. Completes when
     * the text holding this moment's state is on disk (or failed). Call on the context.
     */
    public Future<Void> save() {
        return save(false);
    }

    private Future<Void> save(boolean now) {
        long wait = notBefore == Long.MIN_VALUE ? 0 : notBefore - System.nanoTime();
        if (writing || (!now && wait > 0)) {
            if (!writing && !again) {
                context.owner().setTimer(Math.max(1, wait / 1_000_000), id -> drain());
            }
            again = true;
            if (next == null) {
                next = Promise.promise();
            }
            return next.future();
        }
        writing = true;
        long started = System.nanoTime();
        return capture.get().compose(e -> context.<Void>executeBlocking(() -> {
            EvaluationFile.write(file, e);
            return null;
        }, false)).onComplete(r -> {
            writing = false;
            long took = System.nanoTime() - started;
            lastWriteNanos = took;
            notBefore = System.nanoTime() + (long) (took * (1 / DUTY - 1));
            if (r.failed()) {
                LOG.warning(file + ": cannot write the evaluation: " + describe(r.cause()));
            } else {
                writes++;
            }
            if (again) {
                // the last write, on stop, waits for nothing but the one under way
                long left = stopping ? 0 : notBefore - System.nanoTime();
                context.owner().setTimer(Math.max(1, left / 1_000_000), id -> drain());
            }
        }).otherwiseEmpty();
    }

    /** Makes the write asked for while one was under way or the duty cycle held it back. */
    private void drain() {
        if (!again || writing) {
            return;
        }
        again = false;
        Promise<Void> waiting = next;
        next = null;
        save(true).onComplete(waiting);
    }

    /** How long the latest write took, from the start of its capture until it was on disk. */
    public long lastWriteNanos() {
        return lastWriteNanos;
    }

    /** Writes completed since start. */
    public long writes() {
        return writes;
    }

    /** Stops the timers and writes a last time; completes once written or failed. Call on the context. */
    public Future<Void> stop() {
        stopping = true;
        if (periodic >= 0) {
            context.owner().cancelTimer(periodic);
            periodic = -1;
        }
        if (soon >= 0) {
            context.owner().cancelTimer(soon);
            soon = -1;
        }
        if (writing) {
            again = true;
            if (next == null) {
                next = Promise.promise();
            }
            return next.future();
        }
        return save(true);
    }

    private static String describe(Throwable e) {
        return e instanceof IOException && e.getMessage() != null ? e.getClass().getSimpleName() + ": "
                + e.getMessage() : String.valueOf(e);
    }
}
