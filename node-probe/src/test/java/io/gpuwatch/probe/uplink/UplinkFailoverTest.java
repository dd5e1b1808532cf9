package io.gpuwatch.probe.uplink;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Welcome;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An uplink among clustered gateways: it follows a welcome's redirect and fails over along its gateway list. */
@ExtendWith(VertxExtension.class)
@Timeout(value = 20, timeUnit = TimeUnit.SECONDS)
class UplinkFailoverTest {
    static final long NOW = 1_764_700_000_000L;
    private static final String UUID = "GPU-3f1c0000-0000-0000-0000-000000000001";

    static Hello hello() {
        return new Hello(Frame.VERSION, "gpu-a17", "5b2f-boot", "test-probe/1", null, null, Map.of(),
                List.of(new CardInfo(UUID, 0, "NVIDIA H100 80GB HBM3", "00000000:1B:00.0", 85_520_809_984L, 700.0,
                        1980, false)));
    }

    private static Event xid(int code) {
        return new Event(0, NOW, UUID, "xid", code, "Xid " + code, null);
    }

    Uplink uplink(Vertx vertx, UplinkConfig config) {
        return new Uplink(vertx, config, hello(), () -> NOW, new SplittableRandom(7));
    }

    private static String url(int port) {
        return "ws://localhost:" + port + UplinkConfig.PROBE_PATH;
    }

    @Test
    void aRedirectingWelcomeSendsTheProbeToTheOwnerWhereItsFramesGo(Vertx vertx, VertxTestContext ctx) {
        TestGateway entry = new TestGateway(vertx);
        TestGateway owner = new TestGateway(vertx);
        Future.all(entry.start(), owner.start()).onComplete(ctx.succeeding(ports -> {
            int ownerPort = ports.resultAt(1);
            entry.answer = (h, n) -> new Welcome(Frame.VERSION, "s", 0, 1000, url(ownerPort));
            Uplink up = uplink(vertx, UplinkConfig.of("localhost", ports.resultAt(0), TestGateway.TOKEN)
                    .withBackoff(new Backoff(10, 40)));
            up.start();
            up.send(xid(79));
            Await.until(vertx, "the event at the owner", () -> !owner.connections.isEmpty()
                            && owner.connections.get(0).frames.size() >= 2 && up.stats().buffered() == 0)
                    .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                        assertEquals(1, entry.connections.size(), "one hello at the entry gateway, then gone");
                        assertEquals(List.of(), entry.connections.get(0).seqs(), "no frame left at the entry");
                        assertEquals(List.of(1L), owner.connections.get(0).seqs());
                        assertEquals(url(ownerPort), up.gateway());
                        assertTrue(up.stats().connected());
                        assertEquals(0, up.stats().reconnects(), "a redirect is no failure");
                        ctx.completeNow();
                    })));
        }));
    }

    @Test
    void redirectsGoingRoundInCirclesEndInABackOff(Vertx vertx, VertxTestContext ctx) {
        TestGateway a = new TestGateway(vertx);
        TestGateway b = new TestGateway(vertx);
        Future.all(a.start(), b.start()).onComplete(ctx.succeeding(ports -> {
            int pa = ports.resultAt(0);
            int pb = ports.resultAt(1);
            a.answer = (h, n) -> new Welcome(Frame.VERSION, "s", 0, 1000, url(pb));
            b.answer = (h, n) -> new Welcome(Frame.VERSION, "s", 0, 1000, url(pa));
            Uplink up = uplink(vertx, UplinkConfig.of("localhost", pa, TestGateway.TOKEN)
                    .withBackoff(new Backoff(10, 40)));
            up.start();
            Await.until(vertx, "a back-off after the redirects", () -> up.stats().reconnects() >= 1)
                    .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                        // hellos before the first back-off: the first connection and MAX_REDIRECTS redirects
                        long before = Uplink.MAX_REDIRECTS + 1;
                        assertTrue(a.connections.size() + b.connections.size() >= before,
                                "followed the redirects: " + a.connections.size() + " + " + b.connections.size());
                        assertFalse(up.stats().connected());
                        up.close().onComplete(ctx.succeedingThenComplete());
                    })));
        }));
    }

    @Test
    void aDeadGatewaysUnackedFramesAreReplayedToTheNextOneInTheList(Vertx vertx, VertxTestContext ctx) {
        TestGateway first = new TestGateway(vertx);
        TestGateway second = new TestGateway(vertx);
        Future.all(first.start(), second.start()).onComplete(ctx.succeeding(ports -> {
            Uplink up = uplink(vertx, UplinkConfig.of("localhost", ports.resultAt(0), TestGateway.TOKEN)
                    .withBackoff(new Backoff(10, 40)).withOthers(List.of(URI.create(url(ports.resultAt(1))))));
            up.start();
            up.send(xid(79));
            Await.until(vertx, "the first event acked", () -> up.stats().ackedSeq() == 1)
                    .compose(v -> {
                        first.ackEvents = false;
                        up.send(xid(74));
                        return Await.until(vertx, "the second event at the first gateway",
                                () -> first.connections.get(0).frames.size() >= 3);
                    })
                    .compose(v -> first.close().compose(x -> first.connections.get(0).ws.close()))
                    .compose(v -> Await.until(vertx, "the replay at the second gateway",
                            () -> !second.connections.isEmpty() && second.connections.get(0).frames.size() >= 2))
                    .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                        assertEquals(List.of(2L), second.connections.get(0).seqs(), "the unacked event, not the acked one");
                        assertEquals(url(ports.resultAt(1)), up.gateway());
                        ctx.completeNow();
                    })));
        }));
    }

    /** A port nothing listens on any more. */
    private static Future<Integer> deadPort(Vertx vertx) {
        TestGateway gone = new TestGateway(vertx);
        return gone.start().compose(port -> gone.close().map(port));
    }

    @Test
    void withTheFirstGatewaysDownTheProbeTriesTheListInTurnUntilOneWelcomesIt(Vertx vertx, VertxTestContext ctx) {
        TestGateway live = new TestGateway(vertx);
        Future.all(deadPort(vertx), deadPort(vertx), live.start()).onComplete(ctx.succeeding(ports -> {
            List<URI> gateways = List.of(URI.create(url(ports.resultAt(0))), URI.create(url(ports.resultAt(1))),
                    URI.create(url(ports.resultAt(2))));
            Uplink up = uplink(vertx, UplinkConfig.of(gateways, TestGateway.TOKEN, null).withBackoff(new Backoff(10, 40)));
            up.send(xid(79));
            up.start();
            up.send(xid(74));
            Await.until(vertx, "both events acked by the third gateway", () -> up.stats().ackedSeq() == 2)
                    .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                        assertEquals(1, live.connections.size());
                        assertEquals(List.of(1L, 2L), live.connections.get(0).seqs());
                        assertEquals(url(ports.resultAt(2)), up.gateway());
                        assertEquals(2, up.stats().reconnects(), "one back-off after each dead gateway");
                        up.close().onComplete(ctx.succeedingThenComplete());
                    })));
        }));
    }

    @Test
    void whenTheOwnerARedirectLedToDiesTheRedirectingGatewayIsAskedAgainAndTheNewOwnerGetsTheReplay(
            Vertx vertx, VertxTestContext ctx) {
        TestGateway entry = new TestGateway(vertx);
        TestGateway owner = new TestGateway(vertx);
        TestGateway heir = new TestGateway(vertx);
        Future.all(entry.start(), owner.start(), heir.start()).onComplete(ctx.succeeding(ports -> {
            String ownerUrl = url(ports.resultAt(1));
            String heirUrl = url(ports.resultAt(2));
            // the cluster's view: the owner until it is gone, then the heir
            entry.answer = (h, n) -> new Welcome(Frame.VERSION, "s", 0, 1000, n == 0 ? ownerUrl : heirUrl);
            Uplink up = uplink(vertx, UplinkConfig.of(List.of(URI.create(url(ports.resultAt(0)))), TestGateway.TOKEN,
                    null).withBackoff(new Backoff(10, 40)));
            up.start();
            up.send(xid(79));
            Await.until(vertx, "the first event acked by the owner", () -> up.stats().ackedSeq() == 1)
                    .compose(v -> {
                        owner.ackEvents = false;
                        up.send(xid(74));
                        return Await.until(vertx, "the second event at the owner",
                                () -> owner.connections.get(0).frames.size() >= 3);
                    })
                    .compose(v -> owner.close().compose(x -> owner.connections.get(0).ws.close()))
                    .compose(v -> Await.until(vertx, "the replay at the heir",
                            () -> !heir.connections.isEmpty() && up.stats().ackedSeq() == 2))
                    .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                        assertEquals(2, entry.connections.size(), "asked the entry gateway again");
                        assertEquals(List.of(2L), heir.connections.get(0).seqs(), "the unacked event, not the acked one");
                        assertEquals(heirUrl, up.gateway());
                        up.close().onComplete(ctx.succeedingThenComplete());
                    })));
        }));
    }

    @Test
    void aGatewayListMakesTheFirstThePrimaryAndTheRestItsFailovers() {
        UplinkConfig c = UplinkConfig.of(List.of(URI.create("wss://g1.example"), URI.create("ws://g2:9464/"),
                URI.create("ws://g3:9464/custom/probe")), "t", "/etc/ca.pem");
        assertEquals("g1.example", c.host());
        assertEquals(443, c.port());
        assertTrue(c.ssl());
        assertEquals(UplinkConfig.PROBE_PATH, c.path());
        assertEquals("/etc/ca.pem", c.trustPemPath());
        assertEquals(List.of(URI.create("ws://g2:9464/"), URI.create("ws://g3:9464/custom/probe")), c.others());
        assertEquals(80, UplinkConfig.of(List.of(URI.create("ws://g2")), "t", null).port());
    }

    @Test
    void aGatewayListEntryThatIsNoProbeUrlIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> UplinkConfig.of(List.of(URI.create("ws://g1:9464"), URI.create("http://g2:9464")), "t", null));
        assertEquals("gateway URL http://g2:9464: expected ws://HOST:PORT or wss://HOST:PORT", e.getMessage());
        UplinkConfig base = UplinkConfig.of("localhost", 9464, "t");
        e = assertThrows(IllegalArgumentException.class, () -> base.withOthers(List.of(URI.create("ws:///v1/probe"))));
        assertEquals("gateway URL ws:///v1/probe: no host (expected ws://HOST:PORT or wss://HOST:PORT)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> UplinkConfig.of(List.of(), "t", null));
    }
}
