package io.gpuwatch.gateway.baseline;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A gateway with a data directory reads its baselines at start and writes them on stop, so a restart keeps them. */
@ExtendWith(VertxExtension.class)
class BaselinePersistenceTest {
    private static final long MONDAY = 1_767_571_200_000L;
    private static final long MIN = 60_000;

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static Gateway gateway(Path dataDir) {
        GatewayConfig config = new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000, "http://localhost")
                .withDataDir(dataDir);
        return new Gateway(config, RuleSet.empty(), () -> null, List.of(), () -> Instant.ofEpochMilli(MONDAY));
    }

    /** Two hours of a business's power, a value a minute. */
    private static BaselineBook learned() {
        BaselineBook book = BaselineBook.defaults();
        for (int m = 0; m < 120; m++) {
            book.observe("ads", "powerW", MONDAY + m * MIN, 300 + 10 * Math.sin(m));
            book.observe("search", "powerW", MONDAY + m * MIN, 200 + m);
        }
        return book;
    }

    @Test
    void baselinesSurviveARestart(Vertx vertx, @TempDir Path dir) throws Exception {
        BaselineBook before = learned();
        BaselineFile.write(dir.resolve("baselines.jsonl"), BaselineFile.encode(before));
        Baseline ads = before.get("ads", "powerW", MONDAY + 121 * MIN);

        Gateway first = gateway(dir);
        String id = await(vertx.deployVerticle(first));
        assertEquals(ads, first.fleet().baselines().get("ads", "powerW", MONDAY + 121 * MIN),
                "the first gateway read the file at start");
        Files.delete(dir.resolve("baselines.jsonl"));
        await(vertx.undeploy(id));
        assertTrue(Files.exists(dir.resolve("baselines.jsonl")), "stopping wrote the baselines");

        Gateway second = gateway(dir);
        await(vertx.deployVerticle(second));
        BaselineBook after = second.fleet().baselines();
        assertEquals(2, after.size());
        assertEquals(ads, after.get("ads", "powerW", MONDAY + 121 * MIN));
        assertEquals(before.get("search", "powerW", MONDAY + 121 * MIN),
                after.get("search", "powerW", MONDAY + 121 * MIN));
    }

    @Test
    void aDamagedLineCostsOnlyItsSeries(Vertx vertx, @TempDir Path dir) throws Exception {
        String text = BaselineFile.encode(learned());
        String[] lines = text.split("\n");
        lines[1] = lines[1].substring(0, 20);
        Files.writeString(dir.resolve("baselines.jsonl"), String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        Gateway g = gateway(dir);
        await(vertx.deployVerticle(g));
        assertEquals(1, g.fleet().baselines().size(), "the good line was restored and the gateway started");
        assertFalse(Double.isNaN(g.fleet().baselines().get("search", "powerW", MONDAY + 121 * MIN).mean()));
    }
}
