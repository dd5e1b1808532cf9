package io.gpuwatch.gateway.store;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.nio.file.Path;
import java.time.InstantSource;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The {@link Store} for Vert.x code: every call runs as one transaction on the store's own writer thread, so
 * JDBC and fsync never touch an event loop and writes are applied in the order they were asked for. Each
 * returned future completes on the caller's context, after the write is on disk.
 */
public final class AsyncStore {
    private final Vertx vertx;
    private final ExecutorService writer;
    private final Store store;

    private AsyncStore(Vertx vertx, ExecutorService writer, Store store) {
        this.vertx = vertx;
        this.writer = writer;
        this.store = store;
    }

    /** Opens (or creates) the store at {@code file} on a new writer thread; fails with a {@link StoreException}. */
    public static Future<AsyncStore> open(Vertx vertx, Path file, InstantSource clock, Backoff backoff) {
        ExecutorService writer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "gpuwatch-store");
            // committed data is on disk already, so the writer need not hold the JVM open
            t.setDaemon(true);
            return t;
        });
        Context ctx = vertx.getOrCreateContext();
        return onWriter(writer, ctx, () -> new AsyncStore(vertx, writer, Store.open(file, clock, backoff)))
                .onFailure(e -> writer.shutdown());
    }

    /**
     * Runs {@code work} against the store as one transaction (see {@link Store#transact}); its result, or its
     * exception, completes the future.
     */
    public <T> Future<T> run(Function<Store, T> work) {
        return onWriter(writer, vertx.getOrCreateContext(), () -> store.transact(work));
    }

    /** The file the store lives in. */
    public Path file() {
        return store.file();
    }

    /** Closes the store after every call already asked for has run; later calls fail. */
    public Future<Void> close() {
        Future<Void> closed = onWriter(writer, vertx.getOrCreateContext(), () -> {
            store.close();
            return null;
        });
        writer.shutdown();
        return closed;
    }

    private static <T> Future<T> onWriter(ExecutorService writer, Context ctx, Supplier<T> work) {
        Promise<T> promise = Promise.promise();
        try {
            writer.execute(() -> {
                try {
                    T result = work.get();
                    ctx.runOnContext(v -> promise.complete(result));
                } catch (RuntimeException | Error e) {
                    ctx.runOnContext(v -> promise.fail(e));
                }
            });
        } catch (RejectedExecutionException e) {
            return Future.failedFuture(new StoreException("the store is closed"));
        }
        return promise.future();
    }
}
