package io.gpuwatch.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * examples/deploy/ starts the probe with {@code java} directly: it must start it as lean as
 * {@code ./gpuwatch probe --nvml} does, with the same JVM options and the probe's own jar.
 */
class DeployExamplesTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    /** The launcher's JVM options for {@code probe --nvml}. */
    static List<String> launcherProbeFlags() throws Exception {
        String script = Files.readString(ROOT.resolve("gpuwatch"));
        Matcher m = Pattern.compile("(?s)\\n\\s*probe\\)\\n.*?jvm=\\(([^)]*)\\)").matcher(script);
        assertTrue(m.find(), "the probe's flags in ./gpuwatch");
        List<String> flags = Arrays.asList(m.group(1).trim().split("\\s+"));
        assertTrue(script.contains("gpuwatch-probe.jar"), "the launcher runs the probe from its own jar");
        return flags;
    }

    private static List<String> probeCommand(List<String> flags) {
        List<String> want = new ArrayList<>(flags);
        want.addAll(List.of("-jar", "/opt/gpuwatch/gpuwatch-probe.jar", "probe"));
        return want;
    }

    @Test
    void theSystemdUnitStartsTheProbeAsTheLauncherDoes() throws Exception {
        String unit = Files.readString(ROOT.resolve("examples/deploy/gpuwatch-probe.service"));
        Matcher m = Pattern.compile("(?m)^ExecStart=/usr/bin/java ((?:.*\\\\\\n)*.*)$").matcher(unit);
        assertTrue(m.find(), "ExecStart");
        List<String> words = Arrays.asList(m.group(1).replace("\\\n", " ").trim().split("\\s+"));
        List<String> want = probeCommand(launcherProbeFlags());
        assertEquals(want, words.subList(0, want.size()));
    }

    @Test
    void theDaemonSetStartsTheProbeAsTheLauncherDoes() throws Exception {
        String yaml = Files.readString(ROOT.resolve("examples/deploy/gpuwatch-probe-daemonset.yaml"));
        Matcher m = Pattern.compile("(?s)command: \\[(.*?)]").matcher(yaml);
        assertTrue(m.find(), "the container's command");
        List<String> words = new ArrayList<>();
        Matcher q = Pattern.compile("\"([^\"]*)\"").matcher(m.group(1));
        while (q.find()) {
            words.add(q.group(1));
        }
        assertEquals("java", words.get(0));
        List<String> want = probeCommand(launcherProbeFlags());
        assertEquals(want, words.subList(1, 1 + want.size()));
    }
}
