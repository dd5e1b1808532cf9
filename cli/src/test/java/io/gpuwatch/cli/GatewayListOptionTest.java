package io.gpuwatch.cli;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.probe.trace.Recording;
import io.gpuwatch.probe.trace.TraceWriter;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code probe --gateway} and {@code bench fleet --gateway} given the gateways of a cluster. */
class GatewayListOptionTest extends InProcessCommandTest {
    private static final String TOKEN = "gateway-list-token";
    private static final String UUID = "GPU-list-0000-4e2a-9c1d-7b3f05a1c001";

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void closeVertx() throws Exception {
        await(vertx.close());
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(15, TimeUnit.SECONDS);
    }

    /** A gateway with no rules that takes {@link #TOKEN} for any node. */
    private Gateway gateway() throws Exception {
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "*")));
        Gateway g = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000, "http://127.0.0.1"),
                RuleSet.empty(), () -> tokens, List.of(), InstantSource.system());
        await(vertx.deployVerticle(g));
        return g;
    }

    /** A local port nothing listens on any more. */
    private int deadPort() throws Exception {
        HttpServer s = await(vertx.createHttpServer().requestHandler(r -> r.response().end()).listen(0, "127.0.0.1"));
        int port = s.actualPort();
        await(s.close());
        return port;
    }

    @Test
    void probeTakesTheGatewaysRepeatedOrCommaSeparatedTheFirstBeingThePrimary() {
        ProbeCommand probe = new ProbeCommand();
        new CommandLine(probe).parseArgs("--gateway", "ws://g1:9464,wss://g2:9464/v1/probe", "--token-file", "t",
                "--gateway", " ws://g3 ", "--sim", "s.yaml");
        assertEquals(List.of(URI.create("ws://g1:9464"), URI.create("wss://g2:9464/v1/probe"), URI.create("ws://g3")),
                ProbeCommand.gatewayUrls(probe.gateway));
    }

    @Test
    void aBadGatewayInTheListIsRefusedByNameBeforeAnythingConnects() {
        assertEquals(2, run("probe", "--gateway", "ws://127.0.0.1:9464,http://g2:9464", "--token-file",
                "no-such-token", "--sim", "no-such-scenario.yaml"));
        assertTrue(err.toString().contains("--gateway: gateway URL http://g2:9464: expected ws://HOST:PORT or "
                + "wss://HOST:PORT"), err.toString());

        err.getBuffer().setLength(0);
        assertEquals(2, run("probe", "--gateway", "ws://g1:9464", "--gateway", "ws://g 2:9464",
                "--token-file", "no-such-token", "--sim", "no-such-scenario.yaml"));
        assertTrue(err.toString().contains("--gateway: gateway URL ws://g 2:9464: not a URL (Illegal character"),
                err.toString());

        err.getBuffer().setLength(0);
        assertEquals(2, run("probe", "--gateway", "ws://g1:9464,,ws://g3:9464", "--token-file",
                "no-such-token", "--sim", "no-such-scenario.yaml"));
        assertTrue(err.toString().contains("--gateway: URL 2 of the list is empty"), err.toString());

        err.getBuffer().setLength(0);
        assertEquals(2, run("bench", "fleet", "--gateway", "ws://127.0.0.1:1/v1/probe,ftp://g2:9464",
                "--duration", "2s"));
        assertTrue(err.toString().contains("--gateway: ftp://g2:9464: expected ws://, wss://, http:// or https://"),
                err.toString());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aProbeWhoseFirstGatewayIsDownReplaysItsTraceToTheNextOne(@TempDir Path dir) throws Exception {
        Gateway live = gateway();
        int dead = deadPort();
        Path token = Files.writeString(dir.resolve("token"), TOKEN + "\n");
        Path trace = dir.resolve("node-l.jsonl");
        Hello hello = new Hello(Frame.VERSION, "node-l", "boot-1", "test/1", null, null, Map.of(),
                List.of(new CardInfo(UUID, 0, "NVIDIA H100 80GB HBM3", "00000000:1B:00.0", 85_520_809_984L, 700.0,
                        1980, false)));
        try (TraceWriter writer = TraceWriter.open(trace)) {
            Recording rec = new Recording(writer);
            rec.hello(hello);
            rec.record("node-l", new Event(0, System.currentTimeMillis(), UUID, "xid", 79, "Xid 79", null));
        }

        int rc = run("probe", "--gateway", "ws://127.0.0.1:" + dead + ",ws://127.0.0.1:" + live.port(),
                "--token-file", token.toString(), "--replay", trace.toString(), "--speed", "max");

        assertEquals(0, rc, "every frame acknowledged: " + err);
        assertTrue(err.toString().contains("→ ws://127.0.0.1:" + dead + "/v1/probe, ws://127.0.0.1:" + live.port()),
                "the start-up line names both gateways: " + err);
        assertNotNull(live.fleet().node("node-l"), "the second gateway serves the node");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void benchFleetSpreadsItsNodesOverTheGatewaysAndThoseOfADeadOneFailOver(@TempDir Path dir) throws Exception {
        Gateway live = gateway();
        int dead = deadPort();
        Path token = Files.writeString(dir.resolve("token"), TOKEN + "\n");
        Path summary = dir.resolve("summary.json");
        String liveUrl = "ws://127.0.0.1:" + live.port() + "/v1/probe";
        String deadUrl = "ws://127.0.0.1:" + dead + "/v1/probe";

        int rc = run("bench", "fleet", "--nodes", "4", "--cards", "1", "--interval", "200ms", "--duration", "3s",
                "--app-every", "0", "--report-every", "10s", "--drain", "10s", "--gateway", liveUrl,
                "--gateway", deadUrl, "--token-file", token.toString(), "--summary-json", summary.toString());

        assertEquals(0, rc, "every frame acknowledged: " + out + err);
        JsonObject s = new JsonObject(Files.readString(summary));
        assertEquals(liveUrl + ", " + deadUrl, s.getString("gateway"));
        assertEquals(s.getLong("framesCreated"), s.getLong("framesAcked"), s.encode());
        assertEquals(2, s.getLong("reconnects"), "nodes 1 and 3 began at the dead gateway: " + s.encode());
        for (int i = 0; i < 4; i++) {
            assertNotNull(live.fleet().node(String.format("bench-%05d", i)), "node " + i + " at the live gateway");
        }
    }
}
