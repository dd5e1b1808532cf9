package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.Transition;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clustered gateways over their HTTP API: a silence and an acknowledgement made on gateway 1 are on gateway 2
 * when it joins, in its API and its store; gateway 2 can expire gateway 1's silence after gateway 1 is gone, and a
 * gateway joining then still gets both.
 */
@ExtendWith(VertxExtension.class)
class GatewaySharingTest {
    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");

    private final AtomicReference<Instant> now = new AtomicReference<>(T0);
    private final InstantSource clock = () -> now.get();
    private final List<Vertx> clustered = new ArrayList<>();
    private RuleSet rules;
    private WebClient web;

    @AfterEach
    void leave() throws Exception {
        for (Vertx v : clustered) {
            await(v.close());
        }
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** A gateway joining the cluster members at {@code peers}, its alert {@code too-hot} on gpu-7 firing. */
    private Gateway gateway(int port, List<Integer> peers, Path dataDir) throws Exception {
        Cluster cluster = await(Cluster.join(new ClusterSettings("127.0.0.1", port,
                peers.stream().map(p -> "127.0.0.1:" + p).toList(), "ws://127.0.0.1:1/v1/probe")));
        clustered.add(cluster.vertx());
        GatewayConfig config = new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000, "http://localhost");
        Gateway g = new Gateway(dataDir == null ? config : config.withDataDir(dataDir), rules, RuleFiles.none(),
                () -> null, List.of(), null, clock).clustered(cluster);
        await(cluster.vertx().deployVerticle(g));
        Transition fires = new Transition(rules.rules().get(0), Map.of("alertname", "too-hot", "severity", "page",
                "node", "gpu-7", "uuid", "GPU-1"), AlertState.PENDING, AlertState.FIRING, T0.toEpochMilli(),
                T0.toEpochMilli(), "hot", "");
        g.ledger().apply(fires, g.dispatcher()::dispatch);
        return g;
    }

    private JsonObject get(Gateway g, String path) throws Exception {
        HttpResponse<Buffer> r = await(web.get(g.port(), "127.0.0.1", path).send());
        assertEquals(200, r.statusCode(), r.bodyAsString());
        return r.bodyAsJsonObject();
    }

    private static JsonObject only(JsonObject body, String list) {
        JsonArray items = body.getJsonArray(list);
        assertEquals(1, items.size(), body.encodePrettily());
        return items.getJsonObject(0);
    }

    @Test
    void aSilenceAndAnAckMadeOnOneGatewayAreOnEveryGatewayAndOutliveIt(Vertx vertx, @TempDir Path dir)
            throws Exception {
        RuleLoad load = RuleSet.parse("t.yml", """
                group: t
                layer: device
                scope: card
                rules:
                  - name: too-hot
                    severity: page
                    when: tempC > 85
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        rules = load.ruleSet();
        web = WebClient.create(vertx);
        int p1 = freePort();
        int p2 = freePort();
        int p3 = freePort();

        Gateway one = gateway(p1, List.of(p1), dir.resolve("one"));
        HttpResponse<Buffer> made = await(web.post(one.port(), "127.0.0.1", "/api/v1/silences").sendJsonObject(
                new JsonObject().put("matchers", new JsonArray().add("node=\"gpu-7\""))
                        .put("endsAt", T0.plus(Duration.ofHours(2)).toString()).put("createdBy", "ana")));
        assertEquals(201, made.statusCode(), made.bodyAsString());
        String id = made.bodyAsJsonObject().getString("id");
        String fingerprint = only(get(one, "/api/v1/alerts"), "alerts").getString("fingerprint");
        HttpResponse<Buffer> acked = await(web.post(one.port(), "127.0.0.1", "/api/v1/alerts/" + fingerprint + "/ack")
                .sendJsonObject(new JsonObject().put("by", "bo")));
        assertEquals(200, acked.statusCode(), acked.bodyAsString());

        Gateway two = gateway(p2, List.of(p1, p2), dir.resolve("two"));
        JsonObject silence = only(get(two, "/api/v1/silences"), "silences");
        assertEquals(id, silence.getString("id"));
        assertEquals("active", silence.getString("state"));
        assertEquals("bo", only(get(two, "/api/v1/alerts"), "alerts").getJsonObject("acked").getString("by"));
        assertEquals(Optional.of(id), await(two.store().orElseThrow().run(s -> s.silences().get(id)))
                .map(Silence::id), "gateway 2 restarts with the silence");

        await(clustered.remove(0).close());
        now.set(T0.plus(Duration.ofMinutes(10)));
        assertEquals(200, await(web.delete(two.port(), "127.0.0.1", "/api/v1/silences/" + id).send()).statusCode(),
                "gateway 2 expires the silence gateway 1 made");

        Gateway three = gateway(p3, List.of(p2, p3), null);
        assertEquals("expired", only(get(three, "/api/v1/silences"), "silences").getString("state"));
        assertEquals("bo", only(get(three, "/api/v1/alerts"), "alerts").getJsonObject("acked").getString("by"));

        now.set(T0.plus(Duration.ofMinutes(11)));
        assertEquals(200, await(web.delete(three.port(), "127.0.0.1", "/api/v1/alerts/" + fingerprint + "/ack")
                .send()).statusCode(), "gateway 3 takes back the acknowledgement gateway 1 recorded");
        long deadline = System.currentTimeMillis() + 10_000;
        while (only(get(two, "/api/v1/alerts"), "alerts").getValue("acked") != null) {
            assertTrue(System.currentTimeMillis() < deadline, "gateway 2 still shows the acknowledgement");
            Thread.sleep(20);
        }
        assertTrue(await(two.store().orElseThrow().run(s -> s.acks().latest(fingerprint))).orElseThrow().withdrawn(),
                "gateway 2 keeps the withdrawal, so it restarts without the acknowledgement");
    }
}
