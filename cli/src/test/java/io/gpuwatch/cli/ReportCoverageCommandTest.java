package io.gpuwatch.cli;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static io.gpuwatch.cli.ViewerGateway.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code gpuwatch report coverage} against a gateway running in this JVM, fed one node's frames. */
@ExtendWith(VertxExtension.class)
class ReportCoverageCommandTest {
    private static final long T0 = 1_764_700_200_000L;

    @TempDir
    Path dir;

    private final ViewerGateway cli = new ViewerGateway(T0);

    @BeforeEach
    void start(Vertx vertx) throws Exception {
        AtomicLong now = cli.now;
        Gateway gateway = cli.start(vertx, new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000,
                "http://localhost"), "app.yml", """
                group: app
                layer: application
                scope: task
                rules:
                  - name: slow-first-token
                    severity: ticket
                    when: ttftP99Ms > 2000
                """, g -> { });
        await(gateway.onEventLoop(() -> {
            gateway.hello(new Hello(1, "own-1", "b1", "test", "550.54", null, Map.of("pool", "owned"),
                    List.of(new CardInfo("GPU-1", 0, "H100", null, null, null, null, null))));
            for (int s = 0; s < 60; s++) {
                now.set(T0 + s * 1000L);
                gateway.frame("own-1", new Sample(s + 1, now.get(), List.of(new CardReading("GPU-1",
                        MetricValues.builder().set(Metric.GPU_UTIL, 90).set(Metric.SM_ACTIVE, 0.5).build(),
                        List.of()))));
                if (s % 5 == 0) {
                    gateway.frame("own-1", new App(s + 1, now.get(), "serve-1", "chat", "vllm",
                            MetricValues.builder().set(Metric.TOKENS_PER_SEC, 800).build()));
                }
            }
            return null;
        }));
        now.set(T0 + 60_000);
    }

    @Test
    void markdownNamesTheGroupWhatArrivesAndWhatTheMissingSignalsCost() throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, ViewerGateway.VIEWER + "\n");
        assertEquals(0, cli.run("report", "coverage", "--gateway", cli.url() + "/", "--token-file", token.toString()),
                cli.err.toString());
        String md = cli.out.toString();
        assertTrue(md.startsWith("# Monitoring coverage\n"), md);
        assertTrue(md.contains("## pool owned · H100 · driver 550.54\n\n1 nodes, 1 cards, 1 of them sending readings"),
                md);
        assertTrue(md.contains("| device | gpuUtil, smActive |"), md);
        assertTrue(md.contains("- `ttftP99Ms` (application): not exported by the scraped applications — cannot fire: "
                + "slow-first-token (application)\n"), md);
        assertTrue(md.contains("- `pending` (scheduling): no scheduler adapter (no sched frames at all)\n"), md);
        assertTrue(md.contains("## Tasks with application metrics\n\n- serve-1: 0.20 frames/s (tokensPerSec)\n"), md);
    }

    @Test
    void jsonIsTheApisAnswer() throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, ViewerGateway.VIEWER);
        assertEquals(0, cli.run("report", "coverage", "--gateway", cli.url(), "--token-file", token.toString(),
                "--format", "json"), cli.err.toString());
        JsonObject report = new JsonObject(cli.out.toString());
        assertEquals(300, report.getInteger("windowSeconds"));
        assertEquals("owned", report.getJsonArray("groups").getJsonObject(0).getString("pool"));
    }

    @Test
    void withoutATokenItSaysWhatToGive() {
        assertEquals(1, cli.run("report", "coverage", "--gateway", cli.url()));
        assertTrue(cli.err.toString().contains("answered 401") && cli.err.toString().contains("give --token-file"),
                cli.err.toString());
        assertEquals(2, cli.run("report", "coverage", "--gateway", "ftp://x"));
        assertTrue(cli.err.toString().contains("--gateway: not an http(s) URL: ftp://x"), cli.err.toString());
    }
}
