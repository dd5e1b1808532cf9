package io.gpuwatch.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the launcher lives, so default paths like examples/rules work from any working directory. */
final class Home {
    private Home() {
    }

    /** {@code relative} under the current directory when it exists there, else under the gpuwatch home. */
    static Path resolve(String relative) {
        Path here = Path.of(relative);
        if (Files.exists(here)) {
            return here;
        }
        String home = System.getProperty("gpuwatch.home");
        return home == null ? here : Path.of(home).resolve(relative);
    }
}
