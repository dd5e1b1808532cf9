package io.gpuwatch.probe.attribution;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A labels file kept current: re-read when its modification time or size changes, looked at no more than once per
 * {@code checkEvery}. A version that does not load leaves the last good mapping in place and is reported once.
 * Reads the file on the calling thread, so call it off the event loop. Thread-safe.
 */
public final class LabelsWatch implements Supplier<Labels> {
    private final Path file;
    private final long checkEveryMs;
    private final LongSupplier clockMs;
    private final Consumer<List<LabelsError>> onError;
    private Labels current = Labels.empty();
    private Version seen;
    private long checkedAt;

    /** The file's identity as far as change detection goes. */
    private record Version(long modifiedMs, long size) {
        static final Version MISSING = new Version(-1, -1);
    }

    /**
     * Reads the file now. When it cannot be read or does not load, the mapping starts empty, the problem goes to
     * {@code onError}, and the file is read again once it changes.
     *
     * @param onError gets the problems of each version that does not load, once per version
     */
    public LabelsWatch(Path file, Duration checkEvery, LongSupplier clockMs, Consumer<List<LabelsError>> onError) {
        this.file = Objects.requireNonNull(file);
        this.checkEveryMs = checkEvery.toMillis();
        this.clockMs = clockMs;
        this.onError = onError;
        this.checkedAt = clockMs.getAsLong();
        reload(version());
    }

    /** The mapping in force now. */
    @Override
    public synchronized Labels get() {
        long now = clockMs.getAsLong();
        if (now - checkedAt >= checkEveryMs) {
            checkedAt = now;
            Version v = version();
            if (!v.equals(seen)) {
                reload(v);
            }
        }
        return current;
    }

    private void reload(Version v) {
        seen = v;
        LabelsLoad load = LabelsLoader.load(file);
        if (load instanceof LabelsLoad.Loaded loaded) {
            current = loaded.labels();
        } else {
            onError.accept(((LabelsLoad.Invalid) load).errors());
        }
    }

    private Version version() {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return new Version(a.lastModifiedTime().toMillis(), a.size());
        } catch (IOException | SecurityException e) {
            return Version.MISSING;
        }
    }
}
