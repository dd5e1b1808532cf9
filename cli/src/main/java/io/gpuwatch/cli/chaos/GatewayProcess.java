package io.gpuwatch.cli.chaos;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A gateway in a JVM of its own (this JVM's java and class path, {@code io.gpuwatch.cli.Main gateway}), so it can
 * be killed with SIGKILL and started again on the same port and data dir. Its output goes to a log file.
 */
final class GatewayProcess {
    /** Small heap and the quick compiler: several gateways share a small machine with the bench. */
    private static final List<String> JVM_OPTIONS = List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** Every gateway started and not yet ended, killed when the bench's JVM exits however it ends short of SIGKILL. */
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        // an aborted bench (Ctrl-C, a failed run) must not leave gateways holding ports and data dirs
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly),
                "chaos-gateways-down"));
    }

    private final List<String> command;
    private final Path log;
    private final int port;
    private Process process;
    private int starts;

    /**
     * @param gatewayArgs the arguments after {@code gateway}
     * @param port the gateway's HTTP port, asked for readiness
     */
    GatewayProcess(List<String> gatewayArgs, int port, Path log) {
        List<String> c = new ArrayList<>();
        c.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        c.addAll(JVM_OPTIONS);
        c.add("-cp");
        c.add(System.getProperty("java.class.path"));
        c.add("io.gpuwatch.cli.Main");
        c.add("gateway");
        c.addAll(gatewayArgs);
        this.command = List.copyOf(c);
        this.port = port;
        this.log = log;
    }

    int port() {
        return port;
    }

    /** Starts the JVM; {@link #awaitReady} tells when it takes probes. */
    void start() throws IOException {
        starts++;
        Process started = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        RUNNING.add(started);
        started.onExit().thenAccept(RUNNING::remove);
        process = started;
    }

    /** Waits until /-/ready answers 200; fails naming the log when the process ends or the deadline passes. */
    void awaitReady(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/-/ready"))
                .timeout(Duration.ofSeconds(2)).build();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("gateway on port " + port + " exited with " + process.exitValue()
                        + " (start " + starts + "); see " + log);
            }
            try {
                if (HTTP.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new IOException("gateway on port " + port + " not ready after " + timeout.toSeconds() + " s; see " + log);
    }

    /** The log's length now, for {@link #awaitLog} to look only at what comes after it. */
    long logLength() throws IOException {
        return Files.exists(log) ? Files.size(log) : 0;
    }

    /** Waits until {@code text} appears in the log after its first {@code from} bytes; fails naming the log. */
    void awaitLog(String text, long from, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            byte[] all = Files.readAllBytes(log);
            if (new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from),
                    StandardCharsets.UTF_8).contains(text)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IOException("gateway on port " + port + " did not log '" + text + "' within " + timeout.toSeconds()
                + " s; see " + log);
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed. Returns once the process is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Ends it gracefully (SIGTERM), at the end of a run. */
    void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
