package io.gpuwatch.gateway.checkpoint;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.ingest.ProbeClient;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway with a data directory acknowledges a probe's frames as its checkpoint puts them on disk, and after a
 * restart tells the probe to resume after what the checkpoint holds, so nothing taken between the last write and
 * a kill is lost: the probe still has it. A real gateway and a real WebSocket client on loopback.
 */
@ExtendWith(VertxExtension.class)
class DurableAckRestartTest {
    private static final String TOKEN = "s3cret-token-for-tests";
    private static final long T0 = 1_764_700_000_000L;

    @TempDir
    Path dir;

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private static Gateway gateway(Path data) {
        RuleLoad load = RuleSet.parse("t.yml", """
                group: t
                layer: device
                scope: card
                rules:
                  - name: hot
                    severity: ticket
                    when: tempC > 90
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "node-*")));
        IngestConfig ingest = new IngestConfig(64 * 1024, 1000, 1000, 64, 3, 10_000, 50, 1000);
        return new Gateway(new GatewayConfig("127.0.0.1", 0, ingest, 1000, "http://localhost").withDataDir(data),
                load.ruleSet(), () -> tokens, List.of(), () -> Instant.ofEpochMilli(T0));
    }

    private static ProbeClient connect(WebSocketClient client, Gateway g) throws Exception {
        ProbeClient probe = ProbeClient.connect(client, g.port(), TOKEN);
        probe.send("{\"type\":\"hello\",\"v\":1,\"seq\":0,\"node\":\"node-1\",\"bootId\":\"boot-a\","
                + "\"cards\":[{\"uuid\":\"GPU-1\",\"index\":0,\"name\":\"H100\"}]}");
        return probe;
    }

    @Test
    void framesAreAcknowledgedAsTheCheckpointKeepsThemAndARestartResumesAfterThem(Vertx vertx) throws Exception {
        WebSocketClient client = vertx.createWebSocketClient();
        Path data = dir.resolve("data");
        Gateway first = gateway(data);
        String id = await(vertx.deployVerticle(first));
        ProbeClient probe = connect(client, first);
        assertEquals(0L, probe.next().getLong("ackedSeq"));
        for (int seq = 1; seq <= 3; seq++) {
            probe.send("{\"type\":\"sample\",\"seq\":" + seq + ",\"ts\":" + T0
                    + ",\"cards\":[{\"uuid\":\"GPU-1\",\"tempC\":70}]}");
        }
        for (int i = 0; i < 500 && first.probes().counters().samples.get() < 3; i++) {
            Thread.sleep(10);
        }
        await(first.onEventLoop(() -> first.checkpoint().orElseThrow().save()).compose(f -> f));
        long acked = 0;
        while (acked < 3) {
            JsonObject ack = probe.next();
            assertEquals("ack", ack.getString("type"), ack.encode());
            assertTrue(ack.getLong("seq") > acked && ack.getLong("seq") <= 3, ack.encode());
            acked = ack.getLong("seq");
        }
        await(vertx.undeploy(id));

        Gateway again = gateway(data);
        id = await(vertx.deployVerticle(again));
        ProbeClient back = connect(client, again);
        assertEquals(3L, back.next().getLong("ackedSeq"), "the restarted gateway resumes after what it took back");
        await(vertx.undeploy(id));
        await(client.close());
    }
}
