package io.gpuwatch.cli;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
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

/** {@code gpuwatch report capacity} against a gateway on a data directory, its history sampled on a stepped clock. */
@ExtendWith(VertxExtension.class)
class ReportCapacityCommandTest {
    private static final long T0 = 1_767_571_200_000L;

    @TempDir
    Path dir;

    private final ViewerGateway cli = new ViewerGateway(T0);
    private Path token;

    @BeforeEach
    void start(Vertx vertx) throws Exception {
        AtomicLong now = cli.now;
        Gateway gateway = cli.start(vertx, new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000,
                "http://localhost", dir.resolve("data")), "device.yml", """
                group: device
                layer: device
                scope: card
                rules:
                  - name: hot
                    severity: notice
                    when: tempC > 95
                """, g -> g.fleet().usePricing(new Pricing("EUR", 1.50, List.of(), Map.of())));
        await(gateway.onEventLoop(() -> {
            gateway.hello(new Hello(1, "own-1", "b1", "test", null, null, Map.of("pool", "owned"),
                    List.of(new CardInfo("GPU-1", 0, "NVIDIA A100-SXM4-80GB", null, null, null, null, null))));
            return null;
        }));
        for (int m = 1; m <= 45; m++) {
            now.set(T0 + m * 60_000L);
            long seq = m;
            await(gateway.onEventLoop(() -> {
                gateway.frame("own-1", new Sample(seq, now.get(), List.of(new CardReading("GPU-1",
                        MetricValues.builder().set(Metric.GPU_UTIL, 0).build(),
                        List.of(new ProcessInfo(9, null, "nb-1", "kim", "research"))))));
                return gateway.usage().orElseThrow().sampleNow();
            }).compose(f -> f));
        }
        token = dir.resolve("token");
        Files.writeString(token, ViewerGateway.VIEWER + "\n");
    }

    @Test
    void markdownNamesTheIdleOwnerAndWhatItsCardsCost() {
        assertEquals(0, cli.run("report", "capacity", "--gateway", cli.url(), "--token-file", token.toString(),
                "--since", "1h"), cli.err.toString());
        String md = cli.out.toString();
        assertTrue(md.startsWith("# Capacity report "), md);
        // idle minutes 1–45, reclaimable 31–45 (15 minutes) at 1.50 an hour
        assertTrue(md.contains("| kim | 0.75 | 0.75 | 0.25 | 0.38 EUR | 1 (1) |"), md);
    }

    @Test
    void jsonAndHtml() {
        assertEquals(0, cli.run("report", "capacity", "--gateway", cli.url(), "--token-file", token.toString(),
                "--since", "1h", "--format", "json"), cli.err.toString());
        JsonObject r = new JsonObject(cli.out.toString());
        assertEquals(15 / 60.0, r.getJsonObject("totals").getDouble("reclaimableCardHours"), 1e-9);
        cli.out.getBuffer().setLength(0);
        assertEquals(0, cli.run("report", "capacity", "--gateway", cli.url(), "--token-file", token.toString(),
                "--format", "html"), cli.err.toString());
        String html = cli.out.toString();
        assertTrue(html.startsWith("<!doctype html>") && html.contains("<svg"), html);
    }

    @Test
    void aBadWindowIsAClearError() {
        assertEquals(2, cli.run("report", "capacity", "--gateway", cli.url(), "--since", "7days"));
        assertTrue(cli.err.toString().contains("--since: expected a duration like 90m, 12h, 7d or 2w, got '7days'"),
                cli.err.toString());
        assertEquals(1, cli.run("report", "capacity", "--gateway", cli.url(), "--token-file", token.toString(),
                "--since", "60d"));
        assertTrue(cli.err.toString().contains("answered 400") && cli.err.toString().contains("30 days of history"),
                cli.err.toString());
        assertEquals(1, cli.run("report", "capacity", "--gateway", cli.url()));
        assertTrue(cli.err.toString().contains("give --token-file"), cli.err.toString());
    }
}
