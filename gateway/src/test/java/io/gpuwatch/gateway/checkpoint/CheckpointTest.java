package io.gpuwatch.gateway.checkpoint;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When the checkpoint writes: the file without windows soon after a change, once for a burst of changes; both
 * files on stop.
 */
@ExtendWith(VertxExtension.class)
class CheckpointTest {
    @TempDir
    Path dir;

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aBurstOfChangesIsWrittenOnceWithinTheDelayAndStopWritesTheLast(Vertx vertx) throws Exception {
        AtomicInteger captures = new AtomicInteger();
        AtomicInteger withWindows = new AtomicInteger();
        Context context = vertx.getOrCreateContext();
        Checkpoint c = new Checkpoint(context, dir, windows -> Future.succeededFuture(
                new Evaluation(windows ? withWindows.incrementAndGet() : captures.incrementAndGet(), List.of(),
                        List.of())));
        context.runOnContext(v -> {
            c.start();
            for (int i = 0; i < 100; i++) {
                c.changed();
            }
        });
        Path file = dir.resolve(EvaluationFile.FILE_NAME);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Checkpoint.CHANGE_DELAY_MS + 2_000);
        while (!Files.exists(file) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(Files.exists(file), "written within the change delay");
        Thread.sleep(300);
        assertEquals(1, captures.get(), "a hundred changes, one write");
        assertEquals(0, withWindows.get(), "the windows wait for their period");
        Future<Void> stopped = Future.future(p -> context.runOnContext(v -> c.stop().onComplete(p)));
        await(stopped);
        assertEquals(2, captures.get());
        assertEquals(1, withWindows.get());
        assertEquals(2, EvaluationFile.read(file).evaluation().at(), "the file holds the last capture");
        assertEquals(1, EvaluationFile.read(c.windowsFile()).evaluation().at());
    }
}
