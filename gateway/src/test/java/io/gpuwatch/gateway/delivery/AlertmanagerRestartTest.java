package io.gpuwatch.gateway.delivery;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.notify.receiver.alertmanager.AlertmanagerConfig;
import io.gpuwatch.notify.receiver.alertmanager.AlertmanagerReceiver;
import io.gpuwatch.notify.receiver.webhook.HttpAuth;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static io.gpuwatch.gateway.delivery.TestProbe.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A real Alertmanager (Debian's {@code prometheus-alertmanager}) restarted in the middle of an incident: it keeps
 * no alerts, so the gateway's re-send must bring the firing alert back within two re-send intervals; the
 * resolution then ends it in Alertmanager at once, not when its {@code endsAt} would lapse.
 */
class AlertmanagerRestartTest {
    private static final Path ALERTMANAGER = Path.of("/usr/bin/prometheus-alertmanager");
    private static final String TOKEN = "am-restart-token";
    private static final long RESEND_MS = 1500;
    private static final String RULES = """
            group: am
            layer: device
            scope: card
            rules:
              - name: too-hot
                severity: page
                when: tempC > 90
            """;
    private static final String AM_CONFIG = """
            route:
              receiver: blackhole
              group_wait: 1s
            receivers:
              - name: blackhole
            """;

    @TempDir
    Path dir;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private Process alertmanager;
    private int amPort;

    @AfterEach
    void stopAlertmanager() throws InterruptedException {
        if (alertmanager != null) {
            alertmanager.destroyForcibly();
            alertmanager.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRestartedAlertmanagerHasTheFiringAlertBackWithinTwoIntervalsAndTheResolutionEndsIt() throws Exception {
        assumeTrue(Files.isExecutable(ALERTMANAGER), "skipped: " + ALERTMANAGER + " is not installed (Debian "
                + "package prometheus-alertmanager; .ci/run installs it)");
        amPort = freePort();
        Files.writeString(dir.resolve("alertmanager.yml"), AM_CONFIG);
        startAlertmanager();

        Vertx vertx = Vertx.vertx();
        try {
            AlertmanagerConfig amConfig = new AlertmanagerConfig("http://127.0.0.1:" + amPort, HttpAuth.NONE,
                    RESEND_MS, 1000, 3, 100, 500);
            AlertmanagerReceiver am = AlertmanagerReceiver.create(vertx, WebClient.create(vertx), "am", amConfig);
            RuleLoad rules = RuleSet.parse("am.yml", RULES);
            assertTrue(rules.ok(), rules.diagnostics().toString());
            TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
            Gateway g = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 100, "http://gw",
                    dir.resolve("data")), rules.ruleSet(), RuleFiles.none(), () -> tokens, List.of(am),
                    InstantSource.system());
            String deployment = await(vertx.deployVerticle(g));
            TestProbe probe = TestProbe.connect(vertx, g.port(), TOKEN, "node-1", "{\"cluster\":\"east\"}");
            probe.sample(System.currentTimeMillis(), 95);

            JsonObject alert = awaitAlert(true, Duration.ofSeconds(10)).orElseThrow();
            assertEquals("node-1", alert.getJsonObject("labels").getString("node"));
            assertEquals("east", alert.getJsonObject("labels").getString("cluster"), "the hello's labels ride along");

            alertmanager.destroy();
            assertTrue(alertmanager.waitFor(10, TimeUnit.SECONDS), "Alertmanager stopped");
            // it keeps no alerts, and the re-send may land before the first look: time it from ready
            startAlertmanager();
            long back = System.nanoTime();
            assertTrue(awaitAlert(true, Duration.ofMillis(2 * RESEND_MS)).isPresent(),
                    "the firing alert is back within two re-send intervals");
            long tookMs = (System.nanoTime() - back) / 1_000_000;
            assertTrue(tookMs <= 2 * RESEND_MS, "back after " + tookMs + " ms");

            probe.sample(System.currentTimeMillis(), 60);
            long resolving = System.nanoTime();
            assertTrue(awaitAlert(false, Duration.ofSeconds(4)).isEmpty(),
                    "the resolution ended the alert, well before the " + amConfig.firingValidityMs() + " ms its "
                            + "last re-send gave it");
            assertTrue((System.nanoTime() - resolving) / 1_000_000 < amConfig.firingValidityMs());
            await(vertx.undeploy(deployment));
        } finally {
            await(vertx.close());
        }
    }

    private void startAlertmanager() throws Exception {
        Path log = dir.resolve("alertmanager.log");
        alertmanager = new ProcessBuilder(ALERTMANAGER.toString(),
                "--config.file=" + dir.resolve("alertmanager.yml"),
                "--storage.path=" + dir.resolve("am-data"),
                "--web.listen-address=127.0.0.1:" + amPort,
                "--cluster.listen-address=")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            assertTrue(alertmanager.isAlive(), () -> "Alertmanager exited: " + read(log));
            try {
                if (http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + amPort + "/-/ready")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(50);
        }
        throw new AssertionError("Alertmanager was not ready within 20 s: " + read(log));
    }

    private JsonArray activeAlerts() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + amPort + "/api/v2/alerts?filter=alertname%3D%22too-hot%22")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return new JsonArray(r.body());
    }

    /** Polls Alertmanager until the too-hot alert is listed ({@code present}) or not, or {@code within} passes. */
    private Optional<JsonObject> awaitAlert(boolean present, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            JsonArray alerts = activeAlerts();
            Optional<JsonObject> found = alerts.isEmpty() ? Optional.empty() : Optional.of(alerts.getJsonObject(0));
            if (found.isPresent() == present || System.nanoTime() > deadline) {
                return found;
            }
            Thread.sleep(50);
        }
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
