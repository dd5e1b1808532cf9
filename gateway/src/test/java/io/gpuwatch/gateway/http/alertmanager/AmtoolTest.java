package io.gpuwatch.gateway.http.alertmanager;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.gpuwatch.gateway.http.alertmanager.PagingGateway.ADMIN;
import static io.gpuwatch.gateway.http.alertmanager.PagingGateway.OPERATOR;
import static io.gpuwatch.gateway.http.alertmanager.PagingGateway.VIEWER;
import static io.gpuwatch.gateway.http.alertmanager.PagingGateway.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The real amtool (Debian's prometheus-alertmanager package) against a running gateway, with its API token in
 * amtool's {@code --http.config.file}: alert query, silence add, query and expire, and config show; a viewer's
 * token cannot add a silence; and the config the status shows passes amtool's own {@code check-config}, the
 * parser Grafana reads it with.
 */
@ExtendWith(VertxExtension.class)
class AmtoolTest {
    private static final Path AMTOOL = Path.of("/usr/bin/amtool");

    @TempDir
    Path dir;

    private PagingGateway paging;
    private WebClient web;

    /** What one amtool run printed, and how it ended. */
    private record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    @BeforeEach
    void start(Vertx vertx) throws Exception {
        assumeTrue(Files.isExecutable(AMTOOL), "amtool is not installed (Debian: apt-get install "
                + "prometheus-alertmanager; .ci/run installs it), so amtool against the gateway is not tried");
        // amtool stamps silences with its own clock, so the gateway keeps real time
        paging = PagingGateway.start(vertx, dir, InstantSource.system());
        web = WebClient.create(vertx);
    }

    /** Runs amtool on the gateway as the holder of {@code token}. */
    private Run amtool(String token, String... args) throws Exception {
        Path http = dir.resolve("http-" + token + ".yml");
        Files.writeString(http, "authorization:\n  type: Bearer\n  credentials: " + token + "\n");
        List<String> command = new ArrayList<>(List.of(AMTOOL.toString(),
                "--alertmanager.url=http://127.0.0.1:" + paging.gateway.port(), "--http.config.file=" + http));
        command.addAll(List.of(args));
        return run(command);
    }

    private Run run(List<String> command) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        // no amtool config of the machine's user may change the flags
        pb.environment().put("HOME", dir.toString());
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "amtool did not finish: " + command);
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static List<String> alertNames(Run r) {
        return new JsonArray(r.out()).stream()
                .map(a -> ((JsonObject) a).getJsonObject("labels").getString("alertname")).sorted().toList();
    }

    @Test
    void amtoolQueriesAlertsAndAddsQueriesAndExpiresSilences() throws Exception {
        Run alerts = amtool(VIEWER, "-o", "json", "alert", "query");
        assertEquals(0, alerts.exit(), alerts.toString());
        assertEquals(List.of("too-hot", "too-slow"), alertNames(alerts));
        Run hot = amtool(VIEWER, "alert", "query", "too-hot");
        assertEquals(0, hot.exit(), hot.toString());
        assertTrue(hot.out().contains("too-hot") && !hot.out().contains("too-slow"), hot.toString());
        Run paged = amtool(VIEWER, "-o", "json", "alert", "query", "--receiver=pager");
        assertEquals(List.of("too-hot"), alertNames(paged), paged.toString());

        Run added = amtool(OPERATOR, "silence", "add", "node=gpu-8", "alertname=~\"too-.*\"", "--author=amtool-user",
                "--comment=re-cabling", "--duration=2h");
        assertEquals(0, added.exit(), added.toString());
        String id = added.out().strip();
        assertTrue(id.matches("[0-9a-f-]{36}"), added.toString());

        Run silenced = amtool(VIEWER, "-o", "json", "alert", "query", "--silenced");
        assertEquals(List.of("too-slow"), alertNames(silenced), silenced.toString());
        assertEquals(List.of("too-hot"), alertNames(amtool(VIEWER, "-o", "json", "alert", "query")),
                "a silenced alert is not active");

        Run query = amtool(VIEWER, "-o", "json", "silence", "query", "node=gpu-8");
        assertEquals(0, query.exit(), query.toString());
        JsonObject listed = new JsonArray(query.out()).getJsonObject(0);
        assertEquals(id, listed.getString("id"));
        assertEquals("amtool-user", listed.getString("createdBy"));
        assertEquals("active", listed.getJsonObject("status").getString("state"));
        assertEquals(new JsonObject().put("name", "alertname").put("value", "too-.*").put("isRegex", true)
                .put("isEqual", true), listed.getJsonArray("matchers").getJsonObject(1));
        Run quiet = amtool(VIEWER, "silence", "query", "-q");
        assertEquals(id, quiet.out().strip(), quiet.toString());

        Run expired = amtool(OPERATOR, "silence", "expire", id);
        assertEquals(0, expired.exit(), expired.toString());
        assertEquals("", amtool(VIEWER, "silence", "query", "-q").out().strip(), "amtool hides expired silences");
        assertEquals(id, amtool(VIEWER, "silence", "query", "-q", "--expired").out().strip());
        assertEquals(List.of("too-hot", "too-slow"), alertNames(amtool(VIEWER, "-o", "json", "alert", "query")));

        // the changes were audited under the token's name, not the author amtool sent
        JsonArray audit = await(web.get(paging.gateway.port(), "127.0.0.1", "/api/v1/audit")
                .bearerTokenAuthentication(ADMIN).send()).bodyAsJsonObject().getJsonArray("entries");
        assertEquals(List.of("silence.expire ana", "silence.create ana"), audit.stream()
                .map(e -> ((JsonObject) e).getString("action") + " " + ((JsonObject) e).getString("who")).toList());
    }

    @Test
    void aViewersTokenCannotAddASilence() throws Exception {
        Run refused = amtool(VIEWER, "silence", "add", "node=gpu-8", "--comment=nope");
        assertNotEquals(0, refused.exit(), refused.toString());
        assertTrue((refused.out() + refused.err()).contains("403"), refused.toString());
        Run stranger = amtool("not-a-token", "alert", "query");
        assertNotEquals(0, stranger.exit(), stranger.toString());
        assertTrue((stranger.out() + stranger.err()).contains("401"), stranger.toString());
        assertEquals("", amtool(VIEWER, "silence", "query", "-q").out().strip());
    }

    @Test
    void theStatusConfigIsOneAlertmanagerAccepts() throws Exception {
        Run shown = amtool(VIEWER, "config", "show");
        assertEquals(0, shown.exit(), shown.toString());
        assertTrue(shown.out().contains("receiver: chat"), shown.toString());
        JsonObject status = await(web.get(paging.gateway.port(), "127.0.0.1", "/api/v2/status")
                .bearerTokenAuthentication(VIEWER).send()).bodyAsJsonObject();
        Path config = dir.resolve("alertmanager.yml");
        Files.writeString(config, status.getJsonObject("config").getString("original"));
        Run check = run(List.of(AMTOOL.toString(), "check-config", config.toString()));
        assertEquals(0, check.exit(), check + "\nconfig:\n" + Files.readString(config));
        assertTrue(check.out().contains("SUCCESS"), check.toString());
    }
}
