package io.gpuwatch.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The web console in a real browser, as an on-call engineer meets it: {@code gpuwatch demo} in a child JVM, and
 * {@code src/test/browser/console-test.cjs} driving Debian's Chromium through playwright-core (installed here by
 * {@code npm ci} from the committed lock file; no browser is downloaded). It logs in with the token the demo
 * printed, sees the XID alert arrive live, moves with j and k, acknowledges it, exports its review, silences
 * another alert from its button, opens the heatmap and a card's charts, previews an edited rule over the demo's
 * data, as a viewer finds no buttons and the server refusing what they would send, and sees the page follow the
 * system's dark mode. Screenshots of each step land in {@code target/console-screenshots/}.
 */
class ConsoleBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path SCRIPTS = Path.of("src/test/browser");
    private static final Path WORK = Path.of("target/console-browser");
    private static final Path SHOTS = Path.of("target/console-screenshots");
    private static final Pattern TOKENS = Pattern.compile(
            "console at (http://127\\.0\\.0\\.1:\\d+)/ ; log in with the operator token ([0-9a-f]+) "
                    + "\\(a viewer token, which may only look: ([0-9a-f]+)\\)");

    @Test
    void anOnCallEngineerHandlesTheDemoFromTheBrowser() throws Exception {
        assertTrue(Files.isExecutable(CHROMIUM), CHROMIUM + " is missing: apt-get install -y chromium (.ci/run does)");
        Files.createDirectories(WORK);
        Files.createDirectories(SHOTS);
        for (String f : List.of("package.json", "package-lock.json", "console-test.cjs")) {
            Files.copy(SCRIPTS.resolve(f), WORK.resolve(f), StandardCopyOption.REPLACE_EXISTING);
        }
        String npm = run(List.of("npm", "ci", "--no-audit", "--no-fund"), Map.of(), 300);
        assertTrue(Files.isDirectory(WORK.resolve("node_modules/playwright-core")), "npm ci: " + npm);

        Path log = WORK.resolve("demo.log");
        List<String> demo = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dgpuwatch.home=" + Path.of("..").toAbsolutePath().normalize(), "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "demo", "--port",
                Integer.toString(GatewayProcess.freePort())));
        Process gateway = new ProcessBuilder(demo).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            Matcher printed = TOKENS.matcher("");
            GatewayProcess.waitFor(() -> printed.reset(read(log)).find() || !gateway.isAlive(), 90_000,
                    "the demo to print its console URL and tokens");
            assertTrue(gateway.isAlive(), "the demo exited: " + read(log));
            String out = run(List.of("node", "console-test.cjs"), Map.of("BASE_URL", printed.group(1),
                    "OPERATOR_TOKEN", printed.group(2), "VIEWER_TOKEN", printed.group(3),
                    "SHOTS", SHOTS.toAbsolutePath().toString()), 400);
            assertTrue(out.contains("ok: dark mode: the page is dark"), "the script ran to its last step:\n" + out
                    + "\ndemo:\n" + read(log));
        } finally {
            gateway.destroy();
            gateway.waitFor(30, TimeUnit.SECONDS);
        }
        for (String shot : List.of("01-login", "03-xid-alert-live", "04-xid-acknowledged", "07-silenced",
                "08-fleet-heatmap", "09-card-charts", "10-rule-preview", "11-viewer-refused", "12-dark-mode")) {
            assertTrue(Files.size(SHOTS.resolve(shot + ".png")) > 0, shot);
        }
    }

    /** Runs {@code command} in the work folder; fails with its output unless it exits 0 within the time. */
    private static String run(List<String> command, Map<String, String> env, long timeoutSec)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile(WORK.toAbsolutePath(), "run", ".log");
        ProcessBuilder pb = new ProcessBuilder(command).directory(WORK.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        boolean done = p.waitFor(timeoutSec, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertTrue(done, String.join(" ", command) + " ran over " + timeoutSec + " s:\n" + text);
        assertEquals(0, p.exitValue(), String.join(" ", command) + ":\n" + text);
        return text;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }
}
