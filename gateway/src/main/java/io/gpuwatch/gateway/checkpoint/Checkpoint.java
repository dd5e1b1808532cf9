package io.gpuwatch.gateway.checkpoint;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Keeps a gateway's evaluation across restarts in two files of its data directory: {@code evaluation.jsonl},
 * everything but the windows (nodes, last-heard times, events, attributions, pending and firing alerts), written at
 * most {@link #CHANGE_DELAY_MS} after a change that matters (a node's hello, an event, an alert's transition),
 * every {@link #PERIOD_MS} and on stop; and {@code windows.jsonl}, the same with every card's windows, written every
 * {@link #PERIOD_MS} and on stop, at most {@link #DUTY} of the time: after a write that took {@code d} from capture
 * to disk the next waits at least {@code d × (1 / DUTY − 1)}, so a large fleet's windows are kept less often
 * rather than at a larger cost, while its changes are still on disk within a second or two. Both are read once at
 * start and merged. The state is captured on the event loop that owns it (copies of the arrays, a batch of nodes
 * per turn) and encoded and written on a worker, one write per file at a time: a change during a write asks for
 * one more write after it, never a queue of them. A failed write is logged and evaluation goes on.
 */
public final class Checkpoint {
    /** How often the evaluation is written while it runs (the windows less often on a large fleet). */
    public static final long PERIOD_MS = 5_000;
    /** The longest a change that matters waits before it is written. */
    public static final long CHANGE_DELAY_MS = 1_000;
    /**
     * How long after a restart a false condition leaves a restored pending or firing alert as it is, unless its
     * node says hello first, and a restored node not heard from does not count the gateway's own absence as its
     * silence: the probes reconnect within seconds (their back-off is at most 10 s) and re-send what they buffered
     * while the gateway was down, which the windows then hold; before that, a condition read from windows with a
     * gap would end alerts a clean run keeps, and every node would look silent for as long as the gateway was down.
     */
    public static final long GRACE_MS = 15_000;
    /**
     * A node heard within this long before a checkpoint was talking when it was taken: after a restart its silence
     * does not count the gateway's absence; one silent for longer was silent before the gateway went, and does.
     */
    public static final long TALKING_MS = 5_000;
    /**
     * The most of the time the writes of each file may take, capture and write together: both files together
     * stay under 5% of one core, some 0.035 CPU-s per million samples at 50,000 cards (docs/performance.md).
     */
    public static final double DUTY = 0.025;
    /** The name of the file that holds the windows too, in the data directory. */
    public static final String WINDOWS_FILE_NAME = "windows.jsonl";

    private static final Logger LOG = Logger.getLogger(Checkpoint.class.getName());

    private final Context context;
    private final Track changes;
    private final Track windows;
    private Consumer<Evaluation> windowsWritten = e -> { };
    private long periodic = -1;
    private long soon = -1;

    /**
     * Keeps what {@code capture} completes with in {@code dataDir}; {@code capture.apply(true)} includes the
     * windows. It is called on {@code context} and may take several turns of it.
     */
    public Checkpoint(Context context, Path dataDir, Function<Boolean, Future<Evaluation>> capture) {
        this.context = context;
        this.changes = new Track(dataDir.resolve(EvaluationFile.FILE_NAME), () -> capture.apply(false));
        this.windows = new Track(dataDir.resolve(WINDOWS_FILE_NAME), () -> capture.apply(true));
    }

    /**
     * Tells {@code then}, on the context, each evaluation whose windows are on disk: from then on what it holds
     * survives a kill, which is when a probe may let go of the frames it came from.
     */
    public void onWindowsWritten(Consumer<Evaluation> then) {
        this.windowsWritten = then;
    }

    /** The file everything but the windows is kept in. */
    public Path file() {
        return changes.file;
    }

    /** The file the windows are kept in, with everything else as of the same moment. */
    public Path windowsFile() {
        return windows.file;
    }

    /**
     * Reads both files on a worker and merges them: the windows of {@code windows.jsonl}, the rest from whichever
     * file is newer. Always succeeds: a missing file is nothing held, a damaged line is logged with file:line and
     * skipped, an unreadable file is logged and nothing is held.
     */
    public Future<Evaluation> read() {
        return context.executeBlocking(() -> {
            Evaluation rest = load(changes.file);
            Evaluation all = load(windows.file);
            return rest.at() >= all.at() ? rest.withWindowsOf(all) : all;
        });
    }

    private static Evaluation load(Path file) {
        try {
            EvaluationFile.Loaded loaded = EvaluationFile.read(file);
            loaded.problems().forEach(LOG::warning);
            return loaded.evaluation();
        } catch (IOException | RuntimeException e) {
            LOG.warning(file + ": cannot read the evaluation, it starts over: " + describe(e));
            return Evaluation.EMPTY;
        }
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
                changes.save(false);
            });
        }
    }

    /**
     * Writes both files as things are now, each when its write under way and its duty cycle allow. Completes when
     * both hold this moment's state (or failed). Call on the context.
     */
    public Future<Void> save() {
        return Future.all(changes.save(false), windows.save(false)).mapEmpty();
    }

    /** Writes of either file completed since start. */
    public long writes() {
        return changes.writes + windows.writes;
    }

    /** How long the latest write of the windows took, from the start of its capture until it was on disk. */
    public long lastWriteNanos() {
        return windows.lastWriteNanos;
    }

    /** Stops the timers and writes both files a last time; completes once written or failed. Call on the context. */
    public Future<Void> stop() {
        if (periodic >= 0) {
            context.owner().cancelTimer(periodic);
            periodic = -1;
        }
        if (soon >= 0) {
            context.owner().cancelTimer(soon);
            soon = -1;
        }
        return Future.all(changes.stop(), windows.stop()).mapEmpty();
    }

    /** One file's writes: one at a time, within the duty cycle. */
    private final class Track {
        final Path file;
        final Supplier<Future<Evaluation>> capture;
        boolean writing;
        boolean again;
        Promise<Void> next;
        long writes;
        /** When (nano time) the duty cycle lets the next write start. */
        long notBefore = Long.MIN_VALUE;
        long lastWriteNanos;
        boolean stopping;

        Track(Path file, Supplier<Future<Evaluation>> capture) {
            this.file = file;
            this.capture = capture;
        }

        Future<Void> save(boolean now) {
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
            return capture.get().compose(e -> context.<Evaluation>executeBlocking(() -> {
                EvaluationFile.write(file, e);
                return e;
            }, false)).onComplete(r -> {
                writing = false;
                long took = System.nanoTime() - started;
                lastWriteNanos = took;
                notBefore = System.nanoTime() + (long) (took * (1 / DUTY - 1));
                if (r.failed()) {
                    LOG.warning(file + ": cannot write the evaluation: " + describe(r.cause()));
                } else {
                    writes++;
                    if (this == windows) {
                        windowsWritten.accept(r.result());
                    }
                }
                if (again) {
                    // the last write, on stop, waits for nothing but the one under way
                    long left = stopping ? 0 : notBefore - System.nanoTime();
                    context.owner().setTimer(Math.max(1, left / 1_000_000), id -> drain());
                }
            }).<Void>mapEmpty().otherwiseEmpty();
        }

        /** Makes the write asked for while one was under way or the duty cycle held it back. */
        void drain() {
            if (!again || writing) {
                return;
            }
            again = false;
            Promise<Void> waiting = next;
            next = null;
            save(true).onComplete(waiting);
        }

        Future<Void> stop() {
            stopping = true;
            if (writing) {
                again = true;
                if (next == null) {
                    next = Promise.promise();
                }
                return next.future();
            }
            return save(true);
        }
    }

    private static String describe(Throwable e) {
        return e instanceof IOException && e.getMessage() != null ? e.getClass().getSimpleName() + ": "
                + e.getMessage() : String.valueOf(e);
    }
}
