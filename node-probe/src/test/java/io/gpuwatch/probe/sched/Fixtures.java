package io.gpuwatch.probe.sched;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The recorded scheduler outputs under src/test/resources/sched. */
public final class Fixtures {
    public static final Path DIR = Path.of("src", "test", "resources", "sched");

    private Fixtures() {
    }

    public static String read(String relative) {
        try {
            return Files.readString(DIR.resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
