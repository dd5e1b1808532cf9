package io.gpuwatch.cli;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.notify.receiver.webhook.WebhookConfig;
import io.gpuwatch.notify.receiver.webhook.WebhookReceiver;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.probe.sim.SimRunner;
import io.gpuwatch.probe.uplink.Uplink;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole chain on loopback: simulated fleet → WebSocket → gateway → rules → ledger → webhook. */
@ExtendWith(VertxExtension.class)
class EndToEndTest {
    private static final String TOKEN = "e2e-token";
    private static final String SCENARIO = """
            name: e2e
            nodes: 2
            cardsPerNode: 4
            nodePrefix: gpu-
            seed: 7
            incidents:
              - at: 3s
                node: gpu-1
                card: 2
                kind: xid
                code: 79
            """;

    /** One POST the webhook receiver got, with its arrival time. */
    private record Arrival(long atMs, JsonObject body) {
    }

    private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static void waitFor(BooleanSupplier condition, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!condition.getAsBoolean() && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
    }

    private Gateway startGateway(Vertx vertx, int webhookPort) throws Exception {
        RuleLoad rules = RuleSet.load(List.of(Path.of("../examples/rules")));
        assertTrue(rules.ok(), rules.diagnostics().toString());
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "gpu-*")));
        String external = "http://127.0.0.1";
        List<io.gpuwatch.notify.Receiver> receivers = webhookPort < 0 ? List.of()
                : List.of(WebhookReceiver.create(vertx, WebClient.create(vertx), "webhook",
                        WebhookConfig.of("http://127.0.0.1:" + webhookPort + "/hook"), external));
        Gateway gateway = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000, external),
                rules.ruleSet(), () -> tokens, receivers, InstantSource.system());
        await(vertx.deployVerticle(gateway));
        return gateway;
    }

    @Test
    void aScriptedXid79PagesExactlyOnceWithTheCardAndNodeWithinTwoSeconds(Vertx vertx) throws Exception {
        List<Arrival> arrivals = new CopyOnWriteArrayList<>();
        HttpServer hook = await(vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
            arrivals.add(new Arrival(System.currentTimeMillis(), b.toJsonObject()));
            req.response().setStatusCode(200).end();
        })).listen(0, "127.0.0.1"));
        Gateway gateway = startGateway(vertx, hook.actualPort());

        ScenarioLoad load = ScenarioLoader.parse("e2e.yaml", SCENARIO);
        SimFleet fleet = new SimFleet(assertInstanceOf(ScenarioLoad.Loaded.class, load).scenario(), System.currentTimeMillis());
        String uuid = fleet.hello("gpu-1").cards().get(2).uuid();
        long xidAt = fleet.startMs() + 3000;
        SimRunner runner = new SimRunner(vertx, fleet, node -> UplinkConfig.of("127.0.0.1", gateway.port(), TOKEN),
                System::currentTimeMillis);
        await(runner.start());

        waitFor(() -> !arrivals.isEmpty(), 8000);
        Thread.sleep(4000);
        await(runner.close());

        assertEquals(1, arrivals.size(), "one page for one XID, nothing for the quiet cards: " + arrivals);
        JsonObject body = arrivals.get(0).body();
        assertEquals("4", body.getString("version"));
        assertEquals("firing", body.getString("status"));
        JsonArray alerts = body.getJsonArray("alerts");
        assertEquals(1, alerts.size());
        JsonObject labels = alerts.getJsonObject(0).getJsonObject("labels");
        assertEquals("xid-fallen-off-bus", labels.getString("alertname"));
        assertEquals("page", labels.getString("severity"));
        assertEquals("gpu-1", labels.getString("node"), "one page for the node");
        assertTrue(alerts.getJsonObject(0).getJsonObject("annotations").getString("summary")
                .startsWith("GPU 2 of gpu-1 fell off the bus"), "naming card " + uuid + ": " + alerts);
        long latency = arrivals.get(0).atMs() - xidAt;
        System.out.println("XID 79 event -> webhook latency: " + latency + " ms (scripted at +3 s, sampled every 1 s)");
        assertTrue(latency < 2000, "XID to webhook took " + latency + " ms");
    }

    @Test
    void eventsBufferedWhileDisconnectedArriveAfterTheReconnect(Vertx vertx) throws Exception {
        Gateway gateway = startGateway(vertx, -1);
        Hello hello = new Hello(1, "gpu-9", "boot-1", "test", null, null, java.util.Map.of(), List.of());
        Uplink uplink = new Uplink(vertx, UplinkConfig.of("127.0.0.1", gateway.port(), TOKEN), hello);
        await(uplink.start());
        long now = System.currentTimeMillis();
        uplink.send(new Event(0, now, null, "probe_degraded", null, "before the outage", null));
        waitFor(() -> uplink.stats().ackedSeq() >= 1, 5000);
        assertEquals(1, uplink.stats().ackedSeq());

        await(uplink.suspend());
        uplink.send(new Event(0, now + 1, null, "xid", 48, "Double Bit ECC Error", null));
        uplink.send(new Event(0, now + 2, null, "xid", 63, "Row remapping event", null));
        waitFor(() -> uplink.stats().buffered() == 2, 5000);
        assertEquals(2, uplink.stats().buffered(), "held while the gateway is away");
        assertEquals(1, uplink.stats().ackedSeq());
        uplink.resume();

        waitFor(() -> uplink.stats().ackedSeq() >= 3, 5000);
        assertEquals(3, uplink.stats().ackedSeq());
        assertEquals(3, await(gateway.stats()).events(), "every event reached the gateway, once");
        assertEquals(2, gateway.fleet().node("gpu-9").countEvents("xid", -1, 60_000),
                "both XIDs from the outage are in the node's event log");
        await(uplink.close());
    }
}
