package io.gpuwatch.cli;

import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.probe.uplink.Backoff;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.gpuwatch.cli.GatewayProcess.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real gateway process escalating an alert through three steps, each paging a webhook path of its own, killed
 * with SIGKILL after the second step's page and started again on its data directory: the third step is paged
 * once, at the deadline the second step set before the kill, and neither earlier step is paged again.
 */
@ExtendWith(VertxExtension.class)
class EscalationCrashTest {
    private static final String TOKEN = "escalation-token";
    /** Long enough that the restart is over before it ends, so the kept deadline is what pages step 3. */
    private static final long SECOND_STEP_MS = 12_000;

    @TempDir
    Path dir;

    private final List<GatewayProcess> gateways = new CopyOnWriteArrayList<>();
    /** Each page as it arrived: the path it came to, when, and the body. */
    private final List<Arrival> arrivals = new CopyOnWriteArrayList<>();

    private record Arrival(String path, long at, JsonObject body) {
    }

    @AfterEach
    void killGateways() {
        gateways.forEach(GatewayProcess::destroy);
    }

    @Test
    void aKillMidEscalationLosesNoStepAndDoublesNone(Vertx vertx) throws Exception {
        int hookPort = await(vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
            arrivals.add(new Arrival(req.path(), System.currentTimeMillis(), b.toJsonObject()));
            req.response().setStatusCode(200).end();
        })).listen(0, "127.0.0.1")).actualPort();
        Path alerting = dir.resolve("alerting.yml");
        Files.writeString(alerting, alertingFile(hookPort));
        int port = GatewayProcess.freePort();
        Path data = dir.resolve("data");
        Path tokens = GatewayProcess.tokenFile(dir, TOKEN);

        GatewayProcess first = start(port, tokens, data, alerting, "first");
        Uplink probe = connectProbe(vertx, port);
        waitFor(() -> count("/step2") >= 1, 20_000, "the second step's page");
        // the kill lands after the delivery's completion is committed, as CrashRecoveryTest explains
        Thread.sleep(700);
        first.kill();
        long secondPagedAt = arrivals.stream().filter(a -> a.path().equals("/step2")).findFirst().orElseThrow().at();

        GatewayProcess second = start(port, tokens, data, alerting, "second");
        assertTrue(second.log().contains("took back 1 escalations from the store"), second.log());
        waitFor(() -> count("/step3") >= 1, SECOND_STEP_MS + 15_000, "the third step's page after the restart");
        long thirdPagedAt = arrivals.stream().filter(a -> a.path().equals("/step3")).findFirst().orElseThrow().at();
        // the restart took less than the second step's timeout: the deadline kept, not a new one, paged step 3
        assertTrue(thirdPagedAt - secondPagedAt >= SECOND_STEP_MS - 1000, "step 3 came "
                + (thirdPagedAt - secondPagedAt) + " ms after step 2");
        // the last step's timeout ends the policy; watching a while past it is the check that nothing repeats
        Thread.sleep(3500);
        assertEquals(1, count("/step1"), "step 1 once: " + arrivals);
        assertEquals(1, count("/step2"), "step 2 once: " + arrivals);
        assertEquals(1, count("/step3"), "step 3 once: " + arrivals);
        assertEquals(0, count("/route"), "the route only escalates: " + arrivals);
        List<String> keys = arrivals.stream().map(a -> a.body().getString("groupKey")).toList();
        String fingerprint = keys.get(0).split("/")[1];
        assertTrue(keys.stream().allMatch(k -> k.startsWith("escalation/" + fingerprint + "/")), keys.toString());
        assertEquals(3, keys.stream().distinct().count(), "each page has its own idempotency key: " + keys);

        JsonObject escalation = live(port).getJsonObject("escalation");
        assertEquals("three-steps", escalation.getString("policy"));
        assertEquals(3, escalation.getInteger("step"));
        assertEquals("exhausted", escalation.getString("state"), escalation.encodePrettily());
        await(probe.close());
    }

    private static String alertingFile(int hookPort) {
        String hook = "http://127.0.0.1:" + hookPort;
        return """
                receivers:
                  - {name: route, type: webhook, url: "%1$s/route"}
                  - {name: step1, type: webhook, url: "%1$s/step1"}
                  - {name: step2, type: webhook, url: "%1$s/step2"}
                  - {name: step3, type: webhook, url: "%1$s/step3"}
                escalation_policies:
                  - name: three-steps
                    steps:
                      - {via: [step1], timeout: 2s}
                      - {via: [step2], timeout: %2$dms}
                      - {via: [step3], timeout: 2s}
                route:
                  receiver: route
                  group_wait: 0s
                  routes:
                    - matchers: ['alertname="xid-fallen-off-bus"']
                      escalation: three-steps
                """.formatted(hook, SECOND_STEP_MS);
    }

    private long count(String path) {
        return arrivals.stream().filter(a -> a.path().equals(path)).count();
    }

    private GatewayProcess start(int port, Path tokens, Path data, Path alerting, String name) throws Exception {
        GatewayProcess g = GatewayProcess.launch("the " + name + " gateway", port, dir.resolve(name + ".log"),
                List.of(), "--rules", "../examples/rules", "--reload-interval", "0", "--tokens", tokens.toString(),
                "--data-dir", data.toString(), "--alerting", alerting.toString());
        gateways.add(g);
        return g.awaitReady(20_000);
    }

    private static JsonObject live(int port) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + port + "/api/v1/alerts")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return new JsonObject(r.body()).getJsonArray("alerts").getJsonObject(0);
    }

    private static Uplink connectProbe(Vertx vertx, int port) throws Exception {
        ScenarioLoad load = ScenarioLoader.parse("escalation.yaml", """
                name: escalation
                nodes: 1
                cardsPerNode: 1
                nodePrefix: gpu-
                seed: 3
                """);
        SimFleet fleet = new SimFleet(assertInstanceOf(ScenarioLoad.Loaded.class, load).scenario(),
                System.currentTimeMillis());
        Hello hello = fleet.hello("gpu-0");
        Uplink uplink = new Uplink(vertx, UplinkConfig.of("127.0.0.1", port, TOKEN)
                .withBackoff(new Backoff(200, 1000)), hello);
        await(uplink.start());
        uplink.send(fleet.sample("gpu-0", System.currentTimeMillis()));
        uplink.send(new Event(0, System.currentTimeMillis(), hello.cards().get(0).uuid(), "xid", 79,
                "GPU has fallen off the bus", null));
        return uplink;
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
