package io.gpuwatch.cli;

import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.probe.uplink.Uplink;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Hello;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.gpuwatch.cli.GatewayProcess.freePort;
import static io.gpuwatch.cli.GatewayProcess.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three real gateway processes in one cluster on loopback; the one serving a node is killed with SIGKILL in the
 * middle of an incident. The node's probe moves to a survivor within 10 s and replays what it held; the
 * incident paged before the kill is not paged again, and one that began on another card while the owner was
 * dead is paged once.
 */
@ExtendWith(VertxExtension.class)
class ClusterFailoverTest {
    private static final String TOKEN = "cluster-token";
    private static final String SCENARIO = """
            name: cluster
            nodes: 1
            cardsPerNode: 2
            nodePrefix: gpu-
            seed: 3
            """;

    @TempDir
    Path dir;

    private final List<GatewayProcess> gateways = new CopyOnWriteArrayList<>();
    private final List<JsonObject> arrivals = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void killGateways() {
        gateways.forEach(GatewayProcess::destroy);
    }

    @Test
    void killingTheGatewayOfANodeMidIncidentPagesEachIncidentExactlyOnce(Vertx vertx) throws Exception {
        int hookPort = await(vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
            arrivals.add(b.toJsonObject());
            req.response().setStatusCode(200).end();
        })).listen(0, "127.0.0.1")).actualPort();
        Path tokens = GatewayProcess.tokenFile(dir, TOKEN);
        int[] ports = {freePort(), freePort(), freePort()};
        int[] clusterPorts = {freePort(), freePort(), freePort()};
        String members = "127.0.0.1:" + clusterPorts[0] + ",127.0.0.1:" + clusterPorts[1] + ",127.0.0.1:"
                + clusterPorts[2];
        // the first forms the cluster, then the other two join it: joining a formed cluster is quicker and surer
        // than three members forming one at once
        launch(0, ports[0], clusterPorts[0], members, tokens, hookPort).awaitReady(60_000);
        for (int i = 1; i < 3; i++) {
            launch(i, ports[i], clusterPorts[i], members, tokens, hookPort);
        }
        for (int i = 1; i < 3; i++) {
            gateways.get(i).awaitReady(60_000);
        }
        for (int i = 0; i < 3; i++) {
            GatewayProcess g = gateways.get(i);
            waitFor(() -> g.log().contains("cluster members now 3"), 30_000, "all three members in gateway " + i);
        }

        SimFleet fleet = fleet();
        Hello hello = fleet.hello("gpu-0");
        String uuid = hello.cards().get(0).uuid();
        // the second incident is on the other card: the first card's XID 79 hides that card's other alerts
        String other = hello.cards().get(1).uuid();
        // the default back-off, as a deployed probe has it: the 10 s are the product's, not the test's
        Uplink probe = new Uplink(vertx, UplinkConfig.of("127.0.0.1", ports[0], TOKEN)
                .withOthers(List.of(URI.create(url(ports[1])), URI.create(url(ports[2])))), hello);
        await(probe.start());
        probe.send(fleet.sample("gpu-0", System.currentTimeMillis()));
        probe.send(xid(uuid, 79));
        waitFor(() -> pages("xid-fallen-off-bus") >= 1, 20_000, "the XID 79 page at the webhook");
        waitFor(() -> probe.stats().connected() && probe.stats().ackedSeq() >= probe.stats().lastSeq(), 10_000,
                "the owner's ack of the event");
        String owner = probe.gateway();
        int killed = indexOf(ports, owner);

        gateways.get(killed).kill();
        long killedAt = System.currentTimeMillis();
        // the incident goes on while its gateway is dead, and a second one starts: both wait in the probe's buffer
        probe.send(xid(uuid, 79));
        probe.send(xid(other, 74));
        probe.send(fleet.sample("gpu-0", System.currentTimeMillis()));
        waitFor(() -> probe.stats().connected() && !probe.gateway().equals(owner), 10_000,
                "the probe on a surviving gateway (it left " + owner + ")");
        long movedMs = System.currentTimeMillis() - killedAt;
        waitFor(() -> probe.stats().ackedSeq() >= probe.stats().lastSeq(), 10_000, "the replay acked by the survivor");
        waitFor(() -> pages("nvlink-link-down") >= 1, 15_000, "the page of the incident that began during the failover");
        // nothing marks "will not page again"; watching the webhook a while longer is the check
        Thread.sleep(3000);

        assertNotEquals(owner, probe.gateway());
        assertTrue(movedMs <= 10_000, "moved in " + movedMs + " ms");
        assertEquals(1, pages("xid-fallen-off-bus"), "the incident paged before the kill is not paged again: "
                + arrivals);
        assertEquals(1, pages("nvlink-link-down"), "the incident begun during the failover is paged once: " + arrivals);
        // taken over, not fired anew: the survivor's alert began when the dead gateway's did
        JsonObject taken = live(ports[indexOf(ports, probe.gateway())], "xid-fallen-off-bus");
        assertEquals(Instant.parse(firstPage("xid-fallen-off-bus").getString("startsAt")).toEpochMilli(),
                taken.getLong("activeSince"), taken.encodePrettily());
        await(probe.close());
    }

    /** Firing alerts of {@code rule} the webhook was told of, counted over every message. */
    private long pages(String rule) {
        return firing(rule).count();
    }

    private JsonObject firstPage(String rule) {
        return firing(rule).findFirst().orElseThrow();
    }

    private Stream<JsonObject> firing(String rule) {
        return arrivals.stream().filter(b -> "firing".equals(b.getString("status")))
                .flatMap(b -> b.getJsonArray("alerts").stream().map(JsonObject.class::cast))
                .filter(a -> "firing".equals(a.getString("status"))
                        && rule.equals(a.getJsonObject("labels").getString("alertname")));
    }

    /** The live alert of {@code rule} at the gateway on {@code port}. */
    private JsonObject live(int port, String rule) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/api/v1/alerts")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return new JsonObject(r.body()).getJsonArray("alerts").stream().map(JsonObject.class::cast)
                .filter(a -> rule.equals(a.getString("rule"))).findFirst()
                .orElseThrow(() -> new AssertionError("no live " + rule + " at " + port + ": " + r.body()));
    }

    private GatewayProcess launch(int i, int port, int clusterPort, String members, Path tokens, int hookPort)
            throws Exception {
        // C1 only and the serial collector: three JVMs starting on two cores spend their time starting, not compiling
        GatewayProcess g = GatewayProcess.launch("gateway " + i, port, dir.resolve("gateway-" + i + ".log"),
                List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
                "--rules", "../examples/rules", "--reload-interval", "0",
                "--tokens", tokens.toString(), "--webhook", "http://127.0.0.1:" + hookPort + "/hook", "--no-console",
                "--cluster", "--cluster-port", String.valueOf(clusterPort), "--cluster-members", members);
        gateways.add(g);
        return g;
    }

    private static String url(int port) {
        return "ws://127.0.0.1:" + port + UplinkConfig.PROBE_PATH;
    }

    private static int indexOf(int[] ports, String url) {
        for (int i = 0; i < ports.length; i++) {
            if (url(ports[i]).equals(url)) {
                return i;
            }
        }
        throw new AssertionError("the probe is on " + url + ", none of the gateways started");
    }

    private static Event xid(String uuid, int code) {
        return new Event(0, System.currentTimeMillis(), uuid, "xid", code, "Xid " + code, null);
    }

    private static SimFleet fleet() {
        ScenarioLoad load = ScenarioLoader.parse("cluster.yaml", SCENARIO);
        return new SimFleet(assertInstanceOf(ScenarioLoad.Loaded.class, load).scenario(), System.currentTimeMillis());
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
