package io.gpuwatch.probe.uplink;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The unacknowledged-frame buffer is bounded by bytes from the heap the JVM has, so a gateway outage drops the
 * oldest readings instead of running the lean probe out of memory: a JVM started with the launcher's own probe
 * flags (read from {@code ./gpuwatch}) pushes 8-card samples at a gateway that is not there, well past its heap.
 */
class UplinkOutageHeapTest {
    @Test
    void theByteBoundIsAThirdOfTheHeapAtMost64MiB() {
        assertEquals(8L << 20, UplinkConfig.bufferBytesFor(24L << 20));
        assertEquals(1L << 20, UplinkConfig.bufferBytesFor(1L << 20), "room for a frame on a tiny heap");
        assertEquals(64L << 20, UplinkConfig.bufferBytesFor(4L << 30));
    }

    /** The JVM options `./gpuwatch probe --nvml` starts the probe with. */
    static List<String> launcherProbeFlags() throws IOException {
        Path launcher = Path.of(System.getProperty("user.dir")).resolveSibling("gpuwatch");
        String script = Files.readString(launcher);
        Matcher m = Pattern.compile("(?s)\\n\\s*probe\\)\\n.*?jvm=\\(([^)]*)\\)").matcher(script);
        assertTrue(m.find(), "the probe's flags in " + launcher);
        List<String> flags = new ArrayList<>();
        for (String f : m.group(1).trim().split("\\s+")) {
            flags.add(f);
        }
        assertTrue(flags.stream().anyMatch(f -> f.startsWith("-Xmx")), "the launcher sets the probe's heap: " + flags);
        return flags;
    }

    @Test
    void anOutageNeverRunsTheLauncherSizedProbeOutOfMemory(@TempDir Path dir) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(launcherProbeFlags());
        cmd.add("-XX:+ExitOnOutOfMemoryError");
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), OutageMain.class.getName(),
                "ws://127.0.0.1:" + port + "/v1/probe", "6000"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("out").toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the outage run ends");
        String out = Files.readString(dir.resolve("out"));
        assertEquals(0, p.exitValue(), "exit 0: the buffer stayed within its bound and dropped samples\n" + out);
    }
}
