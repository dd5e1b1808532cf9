package io.gpuwatch.gateway.reload;

import io.vertx.core.Vertx;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * What a file says, read again when it changes (size, modification time or inode), so a token can be added or
 * revoked, or a certificate renewed, without a restart. A read with problems keeps what is in force and logs
 * each problem. Reads run on a worker thread; {@link #get()} is safe from any thread.
 *
 * @param <T> what the file holds
 */
public final class WatchedFile<T> implements Supplier<T> {
    private static final Logger LOG = Logger.getLogger(WatchedFile.class.getName());

    /** Reads the file: what it holds, or null after telling {@code problems} each one. */
    @FunctionalInterface
    public interface Reader<T> {
        T read(Path file, Consumer<String> problems);
    }

    private final Path file;
    private final Reader<T> reader;
    private final List<Consumer<T>> listeners = new ArrayList<>();
    private volatile T current;
    private volatile Map<String, String> seen;

    private WatchedFile(Path file, Reader<T> reader, T first, Map<String, String> stamps) {
        this.file = file;
        this.reader = reader;
        this.current = first;
        this.seen = stamps;
    }

    /** Reads {@code file} now; null after telling {@code problems} what is wrong with it. */
    public static <T> WatchedFile<T> read(Path file, Reader<T> reader, Consumer<String> problems) {
        Map<String, String> stamps = RuleReloader.stamps(List.of(file));
        T first = reader.read(file, problems);
        return first == null ? null : new WatchedFile<>(file, reader, first, stamps);
    }

    /** Looks at the file every {@code interval} (zero: never) on {@code vertx}'s workers; call once. */
    public WatchedFile<T> watch(Vertx vertx, Duration interval) {
        if (!interval.isZero()) {
            vertx.setPeriodic(interval.toMillis(), id -> vertx.executeBlocking(() -> {
                check();
                return null;
            }));
        }
        return this;
    }

    /** Runs {@code listener} with each new content taken in, on a worker thread; call before {@link #watch}. */
    public WatchedFile<T> onChange(Consumer<T> listener) {
        listeners.add(listener);
        return this;
    }

    /**
     * Reads the file again if it changed since it was last read; true when new content was taken in. One check
     * at a time, since the poller and a SIGHUP may ask at once.
     */
    public synchronized boolean check() {
        Map<String, String> now = RuleReloader.stamps(List.of(file));
        if (now.equals(seen)) {
            return false;
        }
        seen = now;
        List<String> problems = new ArrayList<>();
        T next = reader.read(file, problems::add);
        if (next == null) {
            problems.forEach(p -> LOG.warning(p + " (the file changed; what it held before stays in force)"));
            return false;
        }
        current = next;
        LOG.info(file + " changed and was read again");
        listeners.forEach(l -> l.accept(next));
        return true;
    }

    @Override
    public T get() {
        return current;
    }
}
