package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.ack.Acknowledgements;
import io.gpuwatch.gateway.match.MatcherParser;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.silence.Silences;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.gateway.store.AsyncStore;
import io.gpuwatch.gateway.store.Backoff;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A gateway takes a peer's change once, only when it is newer, into memory and its store. */
@ExtendWith(VertxExtension.class)
class ReplicaTest {
    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");

    private AsyncStore store;
    private final Silences silences = new Silences(() -> "local");
    private final Acknowledgements acks = new Acknowledgements();
    private final AtomicInteger taken = new AtomicInteger();

    @AfterEach
    void close() throws Exception {
        if (store != null) {
            await(store.close());
        }
    }

    private Replica replica(Vertx vertx, Path dir) throws Exception {
        store = await(AsyncStore.open(vertx, dir.resolve("gpuwatch"), () -> T0, Backoff.standard()));
        return new Replica(silences, acks, () -> Optional.of(store), taken::incrementAndGet);
    }

    private static Silence silence(Instant endsAt, Instant updatedAt) throws Exception {
        return new Silence("s-1", MatcherParser.parseList("{node=\"gpu-7\"}"), T0, endsAt, "ana", "", updatedAt);
    }

    @Test
    void aSilenceIsTakenWhenNewerOnlyAndKeptInTheStore(Vertx vertx, @TempDir Path dir) throws Exception {
        Replica r = replica(vertx, dir);
        Silence made = silence(T0.plusSeconds(3600), T0);
        Silence expired = silence(T0.plusSeconds(60), T0.plusSeconds(60));
        assertTrue(r.take(made));
        assertFalse(r.take(made), "the same change twice");
        assertTrue(r.take(expired));
        assertFalse(r.take(made), "an older change arriving late");
        assertEquals(2, taken.get());
        assertEquals(Optional.of(expired), silences.get("s-1"));
        assertEquals(List.of(expired), await(store.run(s -> s.silences().all())));
    }

    @Test
    void anAcknowledgementAlreadyInTheStoreIsNotAddedAgain(Vertx vertx, @TempDir Path dir) throws Exception {
        Replica r = replica(vertx, dir);
        Acknowledgement ack = new Acknowledgement("fp-1", "bo", T0, "", "api");
        await(store.run(s -> s.acks().add(ack)));
        // a gateway restarted keeps only live alerts' acknowledgements in memory; the cluster brings this one back
        assertTrue(r.take(ack));
        assertFalse(r.take(ack));
        assertEquals(Optional.of(ack), acks.of("fp-1"));
        assertEquals(List.of(ack), await(store.run(s -> s.acks().of("fp-1"))), "one row, not a copy per rejoin");
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
}
