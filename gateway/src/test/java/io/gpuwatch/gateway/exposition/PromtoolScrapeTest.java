package io.gpuwatch.gateway.exposition;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A running gateway fed cards with attribution by real probe connections, scraped over HTTP as Prometheus does,
 * its text checked by the real {@code promtool check metrics} (Debian package {@code prometheus}).
 */
@ExtendWith(VertxExtension.class)
class PromtoolScrapeTest {
    private static final String TOKEN = "s3cret-token-for-tests";
    private static final Path PROMTOOL = Path.of("/usr/bin/promtool");
    private static final String RULES = """
            group: t
            layer: device
            scope: card
            rules:
              - name: hot
                severity: ticket
                when: tempC > 90
            """;

    private Gateway gateway;
    private WebSocketClient probes;
    private WebClient web;
    private final List<WebSocket> sockets = new ArrayList<>();

    @BeforeEach
    void start(Vertx vertx, VertxTestContext ctx, @TempDir Path data) {
        RuleLoad load = RuleSet.parse("t.yml", RULES);
        assertTrue(load.ok(), load.diagnostics().toString());
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
        InstantSource clock = Instant::now;
        IngestConfig ingest = new IngestConfig(64 * 1024, 50, 200, 64, 3, 10_000, 100, 1000);
        Receiver ops = new Receiver() {
            @Override
            public String name() {
                return "ops";
            }

            @Override
            public Future<Void> send(List<Notification> batch) {
                return Future.succeededFuture();
            }
        };
        gateway = new Gateway(new GatewayConfig("127.0.0.1", 0, ingest, 1000, "http://localhost").withDataDir(data),
                load.ruleSet(), () -> tokens, List.of(ops), clock);
        probes = vertx.createWebSocketClient();
        web = WebClient.create(vertx);
        vertx.deployVerticle(gateway).onComplete(ctx.succeedingThenComplete());
    }

    @AfterEach
    void stop() {
        web.close();
    }

    private WebSocket probe(String node, String cards, String readings) throws Exception {
        WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(gateway.port())
                .setURI("/v1/probe").addHeader("Authorization", "Bearer " + TOKEN);
        WebSocket ws = probes.connect(o).toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        sockets.add(ws);
        ws.writeTextMessage("{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"" + node + "\",\"bootId\":\"b1\","
                + "\"driver\":\"550.54.15\",\"cards\":[" + cards + "]}");
        ws.writeTextMessage("{\"type\":\"sample\",\"seq\":1,\"ts\":" + System.currentTimeMillis() + ",\"cards\":["
                + readings + "]}");
        return ws;
    }

    private static String card(int index, String uuid) {
        return "{\"uuid\":\"" + uuid + "\",\"index\":" + index + ",\"name\":\"NVIDIA H100 80GB HBM3\","
                + "\"pciBusId\":\"00000000:1" + index + ":00.0\",\"memTotalBytes\":85520809984}";
    }

    private static String reading(String uuid, double tempC, String processes) {
        return "{\"uuid\":\"" + uuid + "\",\"gpuUtil\":97,\"memUtil\":41,\"memUsedBytes\":61203283968,\"tempC\":"
                + tempC + ",\"memTempC\":80,\"powerW\":612.4,\"energyJ\":123456.7,\"smClockMHz\":1755,"
                + "\"memClockMHz\":2619,\"pstate\":0,\"clockEventReasons\":[\"SW_POWER_CAP\"],"
                + "\"eccCorrectedVolatile\":0,\"eccUncorrectedVolatile\":0,\"retiredPagesPending\":false,"
                + "\"remappedRowsCorrectable\":0,\"remappedRowsUncorrectable\":0,\"remappedRowsPending\":false,"
                + "\"remappedRowsFailed\":false,\"pcieTxKBps\":120034,\"pcieRxKBps\":98122,\"pcieReplays\":0,"
                + "\"pcieLinkGen\":5,\"pcieLinkWidth\":16,\"nvlinkErrors\":0,\"nvlinkLinksDown\":0,\"smActive\":0.62,"
                + "\"smOccupancy\":0.31,\"tensorActive\":0.44,\"dramActive\":0.58,\"processes\":[" + processes + "]}";
    }

    /** Two nodes, three cards, one running a task whose names need escaping, one hot, one with an XID. */
    private void feed() throws Exception {
        WebSocket a = probe("node-a", card(0, "GPU-a0") + "," + card(1, "GPU-a1"),
                reading("GPU-a0", 71, "{\"pid\":4242,\"usedMemBytes\":60129542144,\"task\":\"train \\\"llama\\\"\","
                        + "\"owner\":\"team\\\\llm\",\"business\":\"chat-pretrain\"}") + "," + reading("GPU-a1", 95, ""));
        a.writeTextMessage("{\"type\":\"event\",\"seq\":2,\"ts\":" + System.currentTimeMillis()
                + ",\"uuid\":\"GPU-a1\",\"kind\":\"xid\",\"xid\":79,\"text\":\"GPU has fallen off the bus\"}");
        probe("node-b", card(0, "GPU-b0"), reading("GPU-b0", 60, ""));
        scrapeUntil("/metrics/gpus", t -> t.contains("UUID=\"GPU-b0\"") && t.contains("UUID=\"GPU-a0\"")
                && t.contains("gpuwatch_xid_errors_total{code=\"79\""));
        scrapeUntil("/metrics", t -> t.contains("gpuwatch_notifications_sent_total{receiver=\"ops\"} 1"));
    }

    @Test
    void promtoolFindsBothPathsCleanButForDcgmExportersOwnNaming() throws Exception {
        assumeTrue(Files.isExecutable(PROMTOOL), "promtool is not installed (Debian package 'prometheus', which "
                + ".ci/run installs); skipping the check of the scrape text by the real promtool");
        feed();
        String own = scrape("/metrics");
        assertTrue(own.contains("gpuwatch_alerts{severity=\"ticket\",state=\"firing\"} 1\n"), own);
        assertTrue(own.contains("gpuwatch_outbox_pending{receiver=\"ops\"} "), own);
        assertTrue(own.contains("\ngpuwatch_build_info{version=\""), own);
        assertTrue(own.contains("\ngpuwatch_rule_instance_evaluations_slept_total "), own);
        assertTrue(own.contains("\nprocess_resident_memory_bytes "), own);
        assertTrue(own.contains("\njvm_memory_used_bytes{area=\"heap\"} "), own);
        Check ownCheck = promtool(own);
        assertEquals(0, ownCheck.exit(), "/metrics must pass promtool with no remark:\n" + ownCheck.output());
        assertEquals("", ownCheck.output());

        String gpus = scrape("/metrics/gpus");
        assertTrue(gpus.contains("task=\"train \\\"llama\\\"\",owner=\"team\\\\llm\",business=\"chat-pretrain\"} "),
                gpus);
        Check gpuCheck = promtool(gpus);
        // 3 is promtool's exit for lint remarks only; a parse error exits 1
        assertTrue(gpuCheck.exit() == 0 || gpuCheck.exit() == 3, gpuCheck.output());
        for (String remark : gpuCheck.output().split("\n")) {
            if (remark.isBlank()) {
                continue;
            }
            String name = remark.split(" ", 2)[0];
            // dcgm-exporter's counter names: no _total, and DCGM_FI_DEV_PCIE_REPLAY_COUNTER names its type
            boolean dcgmCounter = name.startsWith("DCGM_FI_")
                    && (remark.endsWith("counter metrics should have \"_total\" suffix")
                    || remark.endsWith("metric name should not include type 'counter'"));
            // modelName is dcgm-exporter's label, kept on every card series so they join with its dashboards
            boolean dcgmLabel = remark.endsWith("label names should be written in 'snake_case' not 'camelCase'");
            assertTrue(dcgmCounter || dcgmLabel, "a remark not due to dcgm-exporter's naming: " + remark);
        }
    }

    @Test
    void gzipIsSentToAScraperThatAcceptsIt() throws Exception {
        feed();
        for (String path : List.of("/metrics", "/metrics/gpus")) {
            HttpResponse<Buffer> z = web.get(gateway.port(), "127.0.0.1", path).putHeader("Accept-Encoding", "gzip")
                    .send().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals("gzip", z.getHeader("Content-Encoding"), path);
            assertEquals("text/plain; version=0.0.4; charset=utf-8", z.getHeader("Content-Type"));
            String text = gunzip(z.body().getBytes());
            assertTrue(text.contains("# TYPE "), text);
            assertFalse(scrapeResponse(path).headers().contains("Content-Encoding"), "plain without Accept-Encoding");
        }
    }

    @Test
    void aLostNodesCardsDisappearFromTheScrape() throws Exception {
        feed();
        sockets.get(sockets.size() - 1).close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        String after = scrapeUntil("/metrics/gpus", t -> !t.contains("Hostname=\"node-b\""));
        assertTrue(after.contains("UUID=\"GPU-a0\""), "the other node's cards stay: " + after);
        assertFalse(after.contains("GPU-b0"), after);
    }

    private record Check(int exit, String output) {
    }

    private static Check promtool(String text) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(PROMTOOL.toString(), "check", "metrics").redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            in.write(text.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "promtool did not finish");
        return new Check(p.exitValue(), out);
    }

    private HttpResponse<Buffer> scrapeResponse(String path) throws Exception {
        HttpResponse<Buffer> r = web.get(gateway.port(), "127.0.0.1", path).send()
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(200, r.statusCode(), r.bodyAsString());
        return r;
    }

    private String scrape(String path) throws Exception {
        return scrapeResponse(path).bodyAsString();
    }

    private String scrapeUntil(String path, Predicate<String> done) throws Exception {
        long until = System.currentTimeMillis() + 10_000;
        String text = scrape(path);
        while (!done.test(text)) {
            if (System.currentTimeMillis() > until) {
                fail("the scrape of " + path + " never showed what was fed within 10 s:\n" + text);
            }
            Thread.sleep(50);
            text = scrape(path);
        }
        return text;
    }

    private static String gunzip(byte[] body) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
