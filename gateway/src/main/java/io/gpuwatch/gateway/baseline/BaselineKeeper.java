package io.gpuwatch.gateway.baseline;

import io.vertx.core.Context;
import io.vertx.core.Future;

import java.io.IOException;
import java.nio.file.Path;
import java.util.logging.Logger;

/**
 * Keeps a gateway's baselines in {@code DIR/baselines.jsonl} across restarts: read at start, written every
 * {@link #SAVE_PERIOD_MS} and on stop. The book is encoded on the event loop that owns it and the text written
 * on a worker, one write at a time; a problem is logged and learning goes on. Without a data directory the
 * baselines live in memory only.
 */
public final class BaselineKeeper {
    /** How often the baselines are written. */
    public static final long SAVE_PERIOD_MS = 5 * 60_000L;
    /** The file's name in the data directory. */
    public static final String FILE_NAME = "baselines.jsonl";

    private static final Logger LOG = Logger.getLogger(BaselineKeeper.class.getName());

    private final Context context;
    private final Path file;
    private long timer = -1;

    /** {@code dataDir} null keeps nothing. Call every method on {@code context}. */
    public BaselineKeeper(Context context, Path dataDir) {
        this.context = context;
        this.file = dataDir == null ? null : dataDir.resolve(FILE_NAME);
    }

    /** The file baselines are kept in, or null without a data directory. */
    public Path file() {
        return file;
    }

    /**
     * Reads the file on a worker and, back on the event loop, adds what it held to {@code book}, then writes
     * {@code book} every {@link #SAVE_PERIOD_MS}. Always succeeds: a missing file is no history, damaged lines
     * are logged with file:line and skipped.
     */
    public Future<Void> start(BaselineBook book) {
        if (file == null) {
            LOG.info("no --data-dir: baselines are learned in memory only and will not survive a restart");
            return Future.succeededFuture();
        }
        return context.executeBlocking(() -> {
            BaselineBook read = BaselineBook.defaults();
            BaselineFile.Loaded loaded = BaselineFile.read(file, read);
            loaded.problems().forEach(LOG::warning);
            if (loaded.series() > 0) {
                LOG.info("restored the baselines of " + loaded.series() + " series from " + file);
            }
            return read;
        }).recover(e -> {
            LOG.warning(file + ": cannot read baselines, learning starts over: " + e.getMessage());
            return Future.succeededFuture(BaselineBook.defaults());
        }).map(read -> {
            book.takeAll(read);
            timer = context.owner().setPeriodic(SAVE_PERIOD_MS, id -> save(book));
            return null;
        });
    }

    /** Writes {@code book} now: encoded here, written on a worker after any write still under way. */
    public Future<Void> save(BaselineBook book) {
        if (file == null) {
            return Future.succeededFuture();
        }
        String text = BaselineFile.encode(book);
        return context.<Void>executeBlocking(() -> {
            BaselineFile.write(file, text);
            return null;
        }, true).onFailure(e -> LOG.warning(file + ": cannot write baselines: " + describe(e)));
    }

    /** Stops the periodic writes and writes {@code book} a last time; completes once it is written or failed. */
    public Future<Void> stop(BaselineBook book) {
        if (timer >= 0) {
            context.owner().cancelTimer(timer);
            timer = -1;
        }
        return save(book).otherwiseEmpty();
    }

    private static String describe(Throwable e) {
        return e instanceof IOException && e.getMessage() != null ? e.getClass().getSimpleName() + ": "
                + e.getMessage() : String.valueOf(e);
    }
}
