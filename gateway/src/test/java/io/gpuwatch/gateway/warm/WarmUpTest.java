package io.gpuwatch.gateway.warm;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The start-up warm-up pages its local sink end to end and leaves nothing behind, whether it succeeds or not. */
class WarmUpTest {
    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void theSyntheticXidPagesTheSinkAndTheScratchGatewayIsGoneAfter() throws Exception {
        Duration took = await(WarmUp.run(vertx, Duration.ofSeconds(20)));

        assertTrue(took.toNanos() > 0, "took " + took);
        assertTrue(vertx.deploymentIDs().isEmpty(), "still deployed: " + vertx.deploymentIDs());
        // the ports and the token were its own: a second run on the same Vert.x pages again
        await(WarmUp.run(vertx, Duration.ofSeconds(20)));
        assertTrue(vertx.deploymentIDs().isEmpty(), "still deployed: " + vertx.deploymentIDs());
    }

    @Test
    void aWarmUpThatRunsOutOfTimeFailsAndStillCleansUp() throws Exception {
        Logger gatewayLog = Logger.getLogger("io.gpuwatch.gateway");
        Level before = gatewayLog.getLevel();

        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> await(WarmUp.run(vertx, Duration.ofMillis(1))));

        assertTrue(failed.getCause().getMessage().contains("Timeout"), failed.getCause().toString());
        assertEquals(before, gatewayLog.getLevel(), "the gateway's log level is given back");
        // the scratch gateway was still starting when the time ran out: the failure comes once it is gone again
        assertTrue(vertx.deploymentIDs().isEmpty(), "still deployed: " + vertx.deploymentIDs());
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
