package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.delivery.RecordingReceiver;
import io.gpuwatch.gateway.ack.Acknowledgements;
import io.gpuwatch.gateway.delivery.Dispatcher;
import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.match.MatcherParser;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.silence.Silences;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.gateway.store.AsyncStore;
import io.gpuwatch.gateway.store.Backoff;
import io.gpuwatch.notify.Notification;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Gateways joined through Hazelcast on loopback, in one JVM, each with its own dispatcher, acknowledgements and
 * (for B) store: a silence or acknowledgement made on one reaches the others at once, and a gateway joining later
 * gets what was made before it came, and gives what it made alone.
 */
class ClusterSharingTest {
    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
    private static final long WAIT_S = 20;

    private final AtomicReference<Instant> now = new AtomicReference<>(T0);
    private final InstantSource clock = () -> now.get();
    private final List<Member> members = new ArrayList<>();

    /** One gateway's share of the cluster: what a Gateway would hand to {@link Cluster#shareWith}. */
    private final class Member {
        final Cluster cluster;
        final Context context;
        final Dispatcher dispatcher;
        final Acknowledgements acks = new Acknowledgements();
        final RecordingReceiver hook = new RecordingReceiver("hook");
        final List<List<Notification>> sent = hook.batches();
        final BlockingQueue<Boolean> taken = new LinkedBlockingQueue<>();
        AsyncStore store;

        Member(Cluster cluster) {
            this.cluster = cluster;
            this.context = cluster.vertx().getOrCreateContext();
            this.dispatcher = Dispatcher.broadcast(List.of(hook), clock);
        }

        Silences silences() {
            return dispatcher.silences();
        }

        <T> T on(Supplier<Future<T>> work) throws Exception {
            Promise<T> p = Promise.promise();
            context.runOnContext(v -> work.get().onComplete(p));
            return p.future().toCompletionStage().toCompletableFuture().get(WAIT_S, TimeUnit.SECONDS);
        }

        /** Joins and starts sharing; the store, if any, is opened first, as a gateway with a data directory does. */
        void start(Path dataDir) throws Exception {
            on(() -> {
                Future<Void> opened = dataDir == null ? Future.succeededFuture()
                        : AsyncStore.open(cluster.vertx(), dataDir.resolve("gpuwatch"), clock, Backoff.standard())
                        .map(s -> {
                            store = s;
                            return null;
                        });
                return opened.compose(v -> cluster.start(() -> { }))
                        .compose(v -> cluster.shareWith(new Replica(silences(), acks, () -> Optional.ofNullable(store),
                                () -> {
                                    dispatcher.tick();
                                    taken.add(true);
                                })));
            });
        }

        /** Waits until this gateway took a change from a peer. */
        void awaitTaken() throws InterruptedException {
            assertNotNull(taken.poll(WAIT_S, TimeUnit.SECONDS), "no change arrived from a peer");
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private Member join(int port, List<Integer> peers) throws Exception {
        List<String> addresses = peers.stream().map(p -> "127.0.0.1:" + p).toList();
        Cluster c = Cluster.join(new ClusterSettings("127.0.0.1", port, addresses, "ws://127.0.0.1:1/v1/probe"))
                .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        Member m = new Member(c);
        members.add(m);
        return m;
    }

    @AfterEach
    void leave() throws Exception {
        for (Member m : members) {
            if (m.store != null) {
                m.on(() -> m.store.close());
            }
            m.cluster.vertx().close().toCompletionStage().toCompletableFuture().get(WAIT_S, TimeUnit.SECONDS);
        }
    }

    private static Notification firing(String node) {
        return new Notification("xid/" + node, Notification.Status.FIRING, Map.of("alertname", "xid-fallen-off-bus",
                "node", node), Map.of(), T0, null, "");
    }

    @Test
    void silencesAndAcknowledgementsReachEveryGatewayAndALateJoinerGetsThem(@TempDir Path dir) throws Exception {
        int pa = freePort();
        int pb = freePort();
        int pc = freePort();
        Member a = join(pa, List.of(pa));
        Member b = join(pb, List.of(pa, pb));
        a.start(null);
        b.start(dir.resolve("b"));

        List<Matcher> gpu7 = List.of(MatcherParser.parse("node=\"gpu-7\""));
        Silence made = a.on(() -> {
            Silences.Result r = a.silences().create(gpu7, null,
                    T0.plus(Duration.ofHours(2)), "ana", "swapping gpu-7", clock.instant());
            a.cluster.share(r.silence());
            a.dispatcher.dispatch(firing("gpu-7"));
            return Future.succeededFuture(r.silence());
        });
        b.awaitTaken();
        b.on(() -> {
            b.dispatcher.dispatch(firing("gpu-7"));
            b.dispatcher.dispatch(firing("gpu-8"));
            return Future.succeededFuture();
        });
        assertEquals(List.of("xid/gpu-8"), b.sent.stream().flatMap(List::stream).map(Notification::fingerprint)
                .toList(), "B, which owns gpu-7, does not page for it");
        assertEquals(Optional.of(made.id()), b.on(() -> b.store.run(s -> s.silences().get(made.id())))
                .map(Silence::id), "B restarts with the silence");
        assertEquals(List.of(), a.sent, "A held the page back too");

        now.set(T0.plus(Duration.ofMinutes(10)));
        b.on(() -> {
            assertTrue(b.silences().expire(made.id(), clock.instant()));
            b.cluster.share(b.silences().get(made.id()).orElseThrow());
            return Future.succeededFuture();
        });
        a.awaitTaken();
        assertEquals(Silence.State.EXPIRED, a.on(() -> Future.succeededFuture(a.silences().get(made.id())
                .orElseThrow().state(clock.instant()))));
        assertEquals(List.of("xid/gpu-7"), a.sent.stream().flatMap(List::stream).map(Notification::fingerprint)
                .toList(), "the expiry made on B lets A's held-back alert go");

        Acknowledgement ack = new Acknowledgement("xid/gpu-8", "bo", clock.instant(), "on it", "api");
        a.on(() -> {
            // what another version or a stranger publishes is skipped, and what follows still arrives
            a.cluster.vertx().eventBus().publish(Cluster.CHANGED, "garbage");
            a.cluster.vertx().eventBus().publish(Cluster.CHANGED, new JsonObject().put("kind", "mute")
                    .put("key", "k").put("value", "{}"));
            a.cluster.vertx().eventBus().publish(Cluster.CHANGED, new JsonObject().put("kind", "silence")
                    .put("key", "s-bad").put("value", "{\"v\":2}"));
            a.acks.record(ack);
            a.cluster.share(ack);
            return Future.succeededFuture();
        });
        b.awaitTaken();
        assertEquals(Optional.of(ack), b.on(() -> Future.succeededFuture(b.acks.of("xid/gpu-8"))));
        assertEquals(List.of(), new ArrayList<>(b.taken), "nothing was taken from the garbage");
        assertTrue(b.on(() -> Future.succeededFuture(b.silences().get("s-bad").isEmpty())));

        AsyncMap<String, String> raw = a.on(() -> a.cluster.vertx().sharedData().getAsyncMap(Cluster.SILENCES));
        a.on(() -> raw.put("junk", "{not json"));
        Member c = join(pc, List.of(pa, pc));
        List<Matcher> gpu9 = List.of(MatcherParser.parse("node=\"gpu-9\""));
        Silence alone = c.on(() -> Future.succeededFuture(c.silences().create(gpu9, null, T0.plus(Duration.ofHours(1)), "cy",
                "made before joining", clock.instant()).silence()));
        a.taken.clear();
        c.start(null);
        assertEquals(Silence.State.EXPIRED, c.on(() -> Future.succeededFuture(c.silences().get(made.id())
                .orElseThrow().state(clock.instant()))), "the late joiner has the silence, expired");
        assertEquals(Optional.of(ack), c.on(() -> Future.succeededFuture(c.acks.of("xid/gpu-8"))));
        a.awaitTaken();
        assertTrue(a.on(() -> Future.succeededFuture(a.silences().get(alone.id()).isPresent())),
                "what C made alone reached A");
    }
}
