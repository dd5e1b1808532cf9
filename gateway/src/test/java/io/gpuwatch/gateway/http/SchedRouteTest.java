package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code POST /v1/sched} against a running gateway: probe tokens, the codec's refusals, and a queue rule firing. */
@ExtendWith(VertxExtension.class)
class SchedRouteTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final String FRAME = """
            {"type":"sched","seq":1,"ts":%d,"queue":"gpu","pending":12,"running":40,"waitP50s":320,
             "fragmentedCards":5,"tasks":[{"task":"slurm-1004","owner":"alice","state":"pending","requestedCards":8}]}
            """.formatted(T0);

    private Gateway gateway;
    private WebClient web;

    @BeforeEach
    void start(Vertx vertx) throws Exception {
        RuleLoad rules = RuleSet.parse("queues.yml", """
                group: queues
                layer: scheduling
                scope: queue
                rules:
                  - name: queue-long
                    severity: ticket
                    when: pending > 10
                    summary: "@{pending} pending in @{queue}"
                """);
        assertTrue(rules.ok(), rules.diagnostics().toString());
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry("slurm-token", "slurm-*"),
                TokenFile.entry("any-token", "*")));
        gateway = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000, "http://localhost"),
                rules.ruleSet(), () -> tokens, List.of(), () -> Instant.ofEpochMilli(T0));
        await(vertx.deployVerticle(gateway));
        web = WebClient.create(vertx);
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private HttpResponse<Buffer> post(String query, String token, String body) throws Exception {
        var req = web.post(gateway.port(), "127.0.0.1", "/v1/sched" + query).putHeader("Content-Type",
                "application/json");
        if (token != null) {
            req.putHeader("Authorization", "Bearer " + token);
        }
        return await(req.sendBuffer(Buffer.buffer(body)));
    }

    @Test
    void aFrameTakenOverHttpIsAQueueLikeAnyOther() throws Exception {
        HttpResponse<Buffer> r = post("?node=slurm-ctl", "slurm-token", FRAME);
        assertEquals(202, r.statusCode(), r.bodyAsString());
        assertEquals(new JsonObject().put("queue", "gpu").put("node", "slurm-ctl").put("tasks", 1),
                r.bodyAsJsonObject());
        assertNotNull(gateway.fleet().queue("gpu"));
        assertTrue(gateway.fleet().tasks().stream().anyMatch(t -> t.name().equals("slurm-1004")));
        Alert alert = gateway.ledger().live().get(0);
        assertEquals("12 pending in gpu", alert.annotations().get("summary"));
    }

    @Test
    void probeTokensOnlyForTheNodesTheyAllow() throws Exception {
        HttpResponse<Buffer> none = post("", null, FRAME);
        assertEquals(401, none.statusCode());
        assertEquals("Bearer realm=\"gpuwatch\"", none.getHeader("WWW-Authenticate"));
        assertEquals(401, post("", "an-api-token", FRAME).statusCode());
        HttpResponse<Buffer> elsewhere = post("", "slurm-token", FRAME);
        assertEquals(403, elsewhere.statusCode());
        assertEquals("this probe token may not speak for node 'sched-api' (it allows slurm-*); name one with ?node=",
                elsewhere.bodyAsJsonObject().getString("error"));
        assertEquals(202, post("", "any-token", FRAME).statusCode(), "sched-api by default");
        assertNull(gateway.fleet().node("sched-api"), "a relay that said no hello is no node of the fleet");
    }

    @Test
    void theCodecsRefusalNamesTheField() throws Exception {
        HttpResponse<Buffer> bad = post("", "any-token", FRAME.replace("\"requestedCards\":8",
                "\"requestedCards\":\"eight\""));
        assertEquals(400, bad.statusCode());
        JsonObject body = bad.bodyAsJsonObject();
        assertEquals("tasks[0].requestedCards", body.getString("field"));
        assertEquals("bad_frame", body.getString("code"));
        assertTrue(body.getString("error").contains("tasks[0].requestedCards"), body.encode());

        HttpResponse<Buffer> sample = post("", "any-token", "{\"type\":\"sample\",\"seq\":1,\"ts\":1,\"cards\":[]}");
        assertEquals(400, sample.statusCode());
        assertEquals("type: must be \"sched\" here, got \"sample\"; other frames go over the probe connection",
                sample.bodyAsJsonObject().getString("error"));

        assertEquals(400, post("", "any-token", "{\"type\":\"sched\",").statusCode());
        assertEquals(400, post("?node=../etc", "any-token", FRAME).statusCode());
    }
}
