package io.gpuwatch.probe.nvml;

import com.sun.jna.Library;
import com.sun.jna.Native;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The scripted fake libnvidia-ml.so.1 that the test build compiles from src/test/c/fake_nvml.c into
 * {@code <build dir>/fake-nvml/}, and its control functions. Its state is global: tests that use it run one at a time.
 */
final class FakeNvml {
    /** The fake's absolute path, next to the test classes. */
    static final String LIBRARY = buildDir().resolve("fake-nvml").resolve("libnvidia-ml.so.1").toString();

    private interface Control extends Library {
        int fake_nvml_load_script(String path);

        String fake_nvml_script_error();

        void fake_nvml_step();

        long fake_nvml_calls(String function, int card);
    }

    private static final Control CONTROL = Native.load(LIBRARY, Control.class);

    private FakeNvml() {
    }

    private static Path buildDir() {
        try {
            return Path.of(FakeNvml.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Replaces the fake's whole state (cards, values, failures, events, counters, step 0) with this script. */
    static void load(Path dir, String script) {
        try {
            Path file = Files.createTempFile(dir, "fake-nvml", ".script");
            Files.writeString(file, script);
            assertEquals(0, CONTROL.fake_nvml_load_script(file.toString()), CONTROL.fake_nvml_script_error());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Moves every card to its next step of values and releases the events queued for it. */
    static void step() {
        CONTROL.fake_nvml_step();
    }

    /** Calls of an NVML function for one card since the script was loaded. */
    static long calls(String function, int card) {
        long n = CONTROL.fake_nvml_calls(function, card);
        if (n < 0) {
            throw new IllegalArgumentException("the fake has no function " + function);
        }
        return n;
    }

    /** Calls of an NVML function in all since the script was loaded. */
    static long calls(String function) {
        return calls(function, -1);
    }
}
