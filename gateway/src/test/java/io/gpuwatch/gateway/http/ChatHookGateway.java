package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.ack.PagerHook;
import io.gpuwatch.gateway.delivery.RecordingReceiver;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.ledger.PersistentLedger;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.RoutingLoad;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.Transition;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway the chat-hook tests click against: rule too-hot on cards GPU-1 and GPU-2 of node gpu-7, both
 * firing since {@link #T0}, routed to the receiver of a {@link PagerHook}, beside a receiver "quiet" that has no
 * hook; it keeps its state in a test's folder and reads the time from {@link #now}.
 */
final class ChatHookGateway {
    static final long T0 = 1_764_700_000_000L;

    /** The gateway's clock, in epoch milliseconds; tests move it on. */
    final AtomicLong now = new AtomicLong(T0);

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** A deployed gateway keeping its state in {@code dir} and taking {@code hook}'s clicks, its alerts fired. */
    Gateway start(Vertx vertx, Path dir, PagerHook hook) throws Exception {
        return start(vertx, dir, hook, g -> g);
    }

    /** As {@link #start(Vertx, Path, PagerHook)}, with {@code more} set on the gateway before it is deployed. */
    Gateway start(Vertx vertx, Path dir, PagerHook hook, UnaryOperator<Gateway> more) throws Exception {
        RuleLoad load = RuleSet.parse("hooks.yml", """
                group: hooks
                layer: device
                scope: card
                rules:
                  - name: too-hot
                    severity: page
                    when: tempC > 85
                    summary: "hot"
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        RuleSet rules = load.ruleSet();
        RoutingLoad r = RoutingConfig.parse("routes.yml", "route:\n  receiver: " + hook.receiver()
                + "\n  group_wait: 1h\n", null);
        assertTrue(r.ok(), r.diagnostics().toString());
        Gateway g = more.apply(new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000,
                "http://localhost").withDataDir(dir), rules, RuleFiles.none(), () -> null,
                List.of(new RecordingReceiver(hook.receiver()), new RecordingReceiver("quiet")), r.config(),
                () -> Instant.ofEpochMilli(now.get())).pagerHooks(List.of(hook)));
        await(vertx.deployVerticle(g));
        for (String uuid : List.of("GPU-1", "GPU-2")) {
            Transition fires = new Transition(rules.rules().get(0), Map.of("alertname", "too-hot",
                    "severity", "page", "node", "gpu-7", "uuid", uuid), AlertState.PENDING, AlertState.FIRING,
                    T0, T0, "hot", "");
            await(g.onEventLoop(() -> {
                g.ledger().apply(fires, g.dispatcher()::dispatch);
                return null;
            }));
        }
        await(((PersistentLedger) g.ledger()).settled());
        return g;
    }

    /** A POST of {@code body} to the gateway, with each header of the name-value pairs whose value is not null. */
    static HttpResponse<Buffer> post(WebClient web, Gateway g, String path, String contentType, String body,
                                     String... headers) throws Exception {
        var req = web.post(g.port(), "127.0.0.1", path).putHeader("Content-Type", contentType);
        for (int i = 0; i < headers.length; i += 2) {
            if (headers[i + 1] != null) {
                req.putHeader(headers[i], headers[i + 1]);
            }
        }
        return await(req.sendBuffer(Buffer.buffer(body)));
    }

    /** The audit entries of {@code action}, in the order the API lists them. */
    static List<JsonObject> audit(WebClient web, Gateway g, String action) throws Exception {
        return await(web.get(g.port(), "127.0.0.1", "/api/v1/audit").send()).bodyAsJsonObject()
                .getJsonArray("entries").stream().map(JsonObject.class::cast)
                .filter(e -> e.getString("action").equals(action)).toList();
    }
}
