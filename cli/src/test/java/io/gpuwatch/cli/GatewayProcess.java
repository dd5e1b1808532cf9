package io.gpuwatch.cli;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real {@code gpuwatch gateway} in a child JVM on the test class path, listening on loopback, its output kept
 * in a log file that failures quote.
 */
final class GatewayProcess {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final String name;
    private final int port;
    private final Path log;
    private final Process process;

    private GatewayProcess(String name, int port, Path log, Process process) {
        this.name = name;
        this.port = port;
        this.log = log;
        this.process = process;
    }

    /**
     * Starts {@code gpuwatch gateway --listen 127.0.0.1:PORT ARGS} with these JVM options, its output in {@code log};
     * does not wait for it. {@code name} is how failures speak of it.
     */
    static GatewayProcess launch(String name, int port, Path log, List<String> jvmOptions, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "gateway",
                "--listen", "127.0.0.1:" + port));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new GatewayProcess(name, port, log, p);
    }

    /** Waits until the gateway answers {@code /-/ready}; fails with its log if it exits first. */
    GatewayProcess awaitReady(long timeoutMs) throws InterruptedException {
        waitFor(() -> ready() || !process.isAlive(), timeoutMs, name + " to be ready");
        assertTrue(process.isAlive(), name + " exited: " + log());
        return this;
    }

    int port() {
        return port;
    }

    /** What the gateway has written so far; empty when the log cannot be read. */
    String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }

    /** SIGKILL, as a crash: nothing of the gateway's shutdown runs. Fails unless it is gone within 10 s. */
    void kill() throws InterruptedException {
        process.toHandle().destroyForcibly();
        assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the killed gateway is gone");
    }

    /** SIGKILL without waiting, for clean-up after a test. */
    void destroy() {
        process.toHandle().destroyForcibly();
    }

    private boolean ready() {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/-/ready"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A token file letting {@code token} in for every node named {@code gpu-*}, as {@code --tokens} reads it. */
    static Path tokenFile(Path dir, String token) throws Exception {
        byte[] hash = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        Path file = dir.resolve("tokens");
        Files.writeString(file, "sha256:" + HexFormat.of().formatHex(hash) + " gpu-*\n");
        return file;
    }

    /** A loopback port free a moment ago, for a gateway to listen on. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Polls every 50 ms until {@code condition} holds; fails naming {@code what} after {@code timeoutMs}. */
    static void waitFor(BooleanSupplier condition, long timeoutMs, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!condition.getAsBoolean()) {
            assertTrue(System.currentTimeMillis() < deadline, "timed out waiting for " + what);
            Thread.sleep(50);
        }
    }
}
