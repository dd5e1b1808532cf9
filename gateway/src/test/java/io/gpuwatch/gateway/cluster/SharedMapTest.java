package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.store.Acknowledgement;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.shareddata.AsyncMap;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A shared map keeps the latest version of each record, whichever order gateways write in (a local map here). */
@ExtendWith(VertxExtension.class)
class SharedMapTest {
    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");

    private AsyncMap<String, String> raw;
    private SharedMap<Acknowledgement> acks;

    @BeforeEach
    void map(Vertx vertx) throws Exception {
        raw = await(vertx.sharedData().<String, String>getAsyncMap(Cluster.ACKS));
        acks = new SharedMap<>(raw, AckForm.INSTANCE);
    }

    private static Acknowledgement ack(String fp, String by, int second) {
        return new Acknowledgement(fp, by, T0.plusSeconds(second), "", "api");
    }

    @Test
    void anOlderOrRepeatedWriteLeavesTheNewerOneInPlace() throws Exception {
        assertTrue(await(acks.offer(ack("fp-1", "ana", 10))));
        assertFalse(await(acks.offer(ack("fp-1", "ana", 10))), "the same acknowledgement again");
        assertFalse(await(acks.offer(ack("fp-1", "bo", 5))), "an older one, arriving late");
        assertEquals("ana", await(acks.get("fp-1")).by());
        assertTrue(await(acks.offer(ack("fp-1", "cy", 20))));
        assertEquals("cy", await(acks.get("fp-1")).by());
    }

    @Test
    void entriesThatDoNotReadAreSkippedAndReplacedByTheNextWrite() throws Exception {
        await(raw.put("fp-junk", "{not json"));
        await(raw.put("fp-next", "{\"v\":2,\"fingerprint\":\"fp-next\"}"));
        await(acks.offer(ack("fp-1", "ana", 10)));
        assertEquals(List.of(ack("fp-1", "ana", 10)), await(acks.all()));

        assertTrue(await(acks.offer(ack("fp-junk", "bo", 1))));
        assertEquals("bo", await(acks.get("fp-junk")).by());
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
}
