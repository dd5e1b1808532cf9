package io.gpuwatch.probe.uplink;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.ConfigFrame;
import io.gpuwatch.protocol.ErrorFrame;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Welcome;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.vertx.core.Vertx;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
@Timeout(value = 20, timeUnit = TimeUnit.SECONDS)
class UplinkTest {
    static final long NOW = 1_764_700_000_000L;
    private static final String UUID = "GPU-3f1c0000-0000-0000-0000-000000000001";
    private TestGateway gateway;
    private int port;

    @BeforeEach
    void up(Vertx vertx, VertxTestContext ctx) {
        gateway = new TestGateway(vertx);
        gateway.start().onComplete(ctx.succeeding(p -> {
            port = p;
            ctx.completeNow();
        }));
    }

    private UplinkConfig config() {
        return UplinkConfig.of("localhost", port, TestGateway.TOKEN).withBackoff(new Backoff(10, 40));
    }

    static Hello hello() {
        return new Hello(Frame.VERSION, "gpu-a17", "5b2f-boot", "test-probe/1", "580.95.05", "13.580.95.05",
                Map.of("rack", "r12"), List.of(new CardInfo(UUID, 0, "NVIDIA H100 80GB HBM3", "00000000:1B:00.0",
                85_520_809_984L, 700.0, 1980, false)));
    }

    private static Sample sample(int util) {
        return new Sample(0, NOW + util, List.of(new CardReading(UUID,
                MetricValues.builder().set(Metric.GPU_UTIL, util).build(), List.of())));
    }

    private static Event xid(int code) {
        return new Event(0, NOW, UUID, "xid", code, "Xid " + code, 4242L);
    }

    Uplink uplink(Vertx vertx, UplinkConfig config) {
        return new Uplink(vertx, config, hello(), () -> NOW, new SplittableRandom(7));
    }

    private TestGateway.Connection conn(int i) {
        return gateway.connections.get(i);
    }

    private boolean has(int connection, int frames) {
        return gateway.connections.size() > connection && conn(connection).frames.size() >= frames;
    }

    @Test
    void sendsHelloFirstThenFramesWithIncreasingSeqAndLetsAckedFramesGo(Vertx vertx, VertxTestContext ctx) {
        Uplink up = uplink(vertx, config());
        up.send(sample(61));
        up.send(xid(79));
        up.send(sample(62));
        up.start();
        Await.until(vertx, "hello and three frames", () -> has(0, 4))
                .compose(v -> {
                    up.send(sample(63));
                    return Await.until(vertx, "the fourth frame", () -> has(0, 5));
                })
                .compose(v -> {
                    up.send(xid(48));
                    return Await.until(vertx, "the gateway's ack of the last event", () -> up.stats().ackedSeq() == 5);
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    List<Frame> frames = conn(0).frames;
                    assertEquals(hello(), frames.get(0));
                    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), conn(0).seqs());
                    assertEquals(List.of("sample", "event", "sample", "sample", "event"),
                            frames.subList(1, 6).stream().map(Frame::type).toList());
                    assertEquals(62.0, ((Sample) frames.get(3)).cards().get(0).values().get(Metric.GPU_UTIL));
                    UplinkStats s = up.stats();
                    assertTrue(s.connected());
                    assertEquals(5, s.lastSeq());
                    assertEquals(0, s.buffered(), "an ack lets every frame up to it go");
                    assertEquals(0, s.reconnects());
                    ctx.completeNow();
                })));
    }

    @Test
    void reconnectsAndReplaysFramesAfterAckedSeqWithTheirOriginalSeq(Vertx vertx, VertxTestContext ctx) {
        gateway.ackEvents = false;
        gateway.answer = (h, n) -> n == 1 ? new Welcome(Frame.VERSION, "second", 3, 1000) : null;
        Uplink up = uplink(vertx, config());
        up.start();
        for (int i = 1; i <= 5; i++) {
            up.send(i == 2 ? xid(13) : sample(60 + i));
        }
        Await.until(vertx, "five frames on the first connection", () -> has(0, 6))
                .compose(v -> {
                    conn(0).ws.close();
                    return Await.until(vertx, "the replay on a second connection", () -> has(1, 3));
                })
                .compose(v -> {
                    up.send(sample(70));
                    return Await.until(vertx, "a new frame after the replay", () -> has(1, 4));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    TestGateway.Connection second = conn(1);
                    Hello again = assertInstanceOf(Hello.class, second.frames.get(0));
                    assertEquals("5b2f-boot", again.bootId());
                    assertEquals(List.of(4L, 5L, 6L), second.seqs());
                    assertEquals(conn(0).texts.subList(4, 6), second.texts.subList(1, 3), "replayed byte for byte");
                    UplinkStats s = up.stats();
                    assertEquals(1, s.reconnects());
                    assertEquals(3, s.ackedSeq());
                    assertEquals(3, s.buffered(), "4, 5 and 6 wait for an ack");
                    ctx.completeNow();
                })));
    }

    @Test
    void fullBufferDropsTheOldestSamplesKeepsEventsAndReportsTheLoss(Vertx vertx, VertxTestContext ctx) {
        Uplink up = uplink(vertx, config().withBuffer(5, 1 << 20));
        // seq: 1 S, 2 E, 3 S, 4 S, 5 E, 6 S, 7 S, 8 S -- while the gateway is out of reach
        up.send(sample(61));
        up.send(xid(79));
        up.send(sample(63));
        up.send(sample(64));
        up.send(xid(48));
        up.send(sample(66));
        up.send(sample(67));
        up.send(sample(68));
        Await.until(vertx, "eight frames numbered", () -> up.stats().lastSeq() == 8)
                .compose(v -> {
                    ctx.verify(() -> {
                        UplinkStats s = up.stats();
                        assertEquals(3, s.droppedSamples());
                        assertEquals(0, s.droppedEvents());
                        assertEquals(5, s.buffered());
                    });
                    up.start();
                    return Await.until(vertx, "the buffer and a report", () -> has(0, 7));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    List<Frame> frames = conn(0).frames;
                    assertEquals(List.of(2L, 5L, 6L, 7L, 8L, 9L), conn(0).seqs());
                    assertEquals(79, ((Event) frames.get(1)).xid());
                    assertEquals(48, ((Event) frames.get(2)).xid());
                    Event report = assertInstanceOf(Event.class, frames.get(6));
                    assertEquals("probe_degraded", report.kind());
                    assertNull(report.uuid(), "a node-wide event");
                    assertEquals(NOW, report.ts());
                    assertTrue(report.text().contains("dropped 3 samples and 0 events between seq 1 and 4"), report.text());
                    assertEquals(3, up.stats().droppedSamples(), "the report itself evicts nothing");
                    ctx.completeNow();
                })));
    }

    @Test
    void bufferOfEventsOnlyDropsTheOldestEvent(Vertx vertx, VertxTestContext ctx) {
        Uplink up = uplink(vertx, config().withBuffer(2, 1 << 20));
        up.send(xid(13));
        up.send(xid(31));
        up.send(xid(43));
        Await.until(vertx, "three events numbered", () -> up.stats().lastSeq() == 3)
                .compose(v -> {
                    up.start();
                    return Await.until(vertx, "two events and a report", () -> has(0, 4));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(List.of(2L, 3L, 4L), conn(0).seqs());
                    assertEquals(1, up.stats().droppedEvents());
                    assertTrue(((Event) conn(0).frames.get(3)).text().contains("0 samples and 1 events"));
                    ctx.completeNow();
                })));
    }

    @Test
    void byteLimitBoundsTheBufferToo(Vertx vertx, VertxTestContext ctx) {
        int one = new FrameCodec().encode(new Sample(10, NOW + 61, sample(61).cards())).length();
        Uplink up = uplink(vertx, config().withBuffer(1000, one * 5L / 2));
        for (int i = 0; i < 4; i++) {
            up.send(sample(61 + i));
        }
        Await.until(vertx, "four samples numbered", () -> up.stats().lastSeq() == 4)
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    UplinkStats s = up.stats();
                    assertEquals(2, s.buffered());
                    assertEquals(2, s.droppedSamples());
                    assertTrue(s.bufferedBytes() <= one * 5L / 2);
                    ctx.completeNow();
                })));
    }

    @Test
    void errorAtHelloBacksOffAndTriesAgain(Vertx vertx, VertxTestContext ctx) {
        gateway.answer = (h, n) -> n == 0 ? new ErrorFrame("forbidden_node", null, "not today") : null;
        Uplink up = uplink(vertx, config());
        up.start();
        up.send(sample(61));
        Await.until(vertx, "welcomed on the second try", () -> up.stats().connected() && has(1, 2))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(1, up.stats().reconnects());
                    assertEquals(List.of(), conn(0).seqs(), "nothing is written before a welcome");
                    assertEquals(List.of(1L), conn(1).seqs());
                    ctx.completeNow();
                })));
    }

    @Test
    void errorWhileConnectedIsLoggedAndTheConnectionStays(Vertx vertx, VertxTestContext ctx) {
        Uplink up = uplink(vertx, config());
        up.start();
        Await.until(vertx, "welcomed", () -> up.stats().connected())
                .compose(v -> {
                    conn(0).send(new ErrorFrame("bad_frame", 1L, "field 'tempC' must be a number"));
                    up.send(sample(61));
                    return Await.until(vertx, "the next frame", () -> has(0, 2));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(1, gateway.connections.size());
                    assertTrue(up.stats().connected());
                    ctx.completeNow();
                })));
    }

    @Test
    void configFrameAsksForAnotherInterval(Vertx vertx, VertxTestContext ctx) {
        AtomicLong asked = new AtomicLong();
        Uplink up = uplink(vertx, config()).intervalHandler(asked::set);
        up.start();
        Await.until(vertx, "welcomed", () -> up.stats().connected())
                .compose(v -> {
                    conn(0).send(new ConfigFrame(500));
                    return Await.until(vertx, "the interval callback", () -> asked.get() != 0);
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(500, asked.get());
                    ctx.completeNow();
                })));
    }

    @Test
    void wrongTokenIsRefusedAtTheHandshakeAndRetriedWithBackoff(Vertx vertx, VertxTestContext ctx) {
        UplinkConfig wrong = new UplinkConfig("localhost", port, false, null, UplinkConfig.PROBE_PATH, "guess",
                100, 1 << 20, new Backoff(10, 40), 5_000);
        Uplink up = uplink(vertx, wrong);
        up.start();
        Await.until(vertx, "three refused handshakes", () -> gateway.refused.get() >= 3)
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertTrue(gateway.connections.isEmpty());
                    assertFalse(up.stats().connected());
                    assertTrue(up.stats().reconnects() >= 2);
                    ctx.completeNow();
                })));
    }

    @Test
    void suspendedUplinkHoldsNoConnectionAndCatchesUpOnResume(Vertx vertx, VertxTestContext ctx) {
        Uplink up = uplink(vertx, config());
        up.start();
        Await.until(vertx, "welcomed", () -> up.stats().connected())
                .compose(v -> up.suspend())
                .compose(v -> Await.until(vertx, "the gateway to see the close", () -> conn(0).closed))
                .compose(v -> {
                    up.send(sample(61));
                    up.send(xid(79));
                    ctx.verify(() -> assertFalse(up.stats().connected()));
                    up.resume();
                    return Await.until(vertx, "the held frames after resuming", () -> has(1, 3));
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(2, gateway.connections.size());
                    assertEquals((short) 1001, conn(0).closeCode);
                    assertEquals(List.of(1L, 2L), conn(1).seqs());
                    assertEquals(0, up.stats().reconnects(), "resuming is not a retry");
                    ctx.completeNow();
                })));
    }

    @Test
    void closeEndsTheConnectionNormallyAndStopsReconnecting(Vertx vertx, VertxTestContext ctx) {
        Uplink up = uplink(vertx, config());
        up.start();
        Await.until(vertx, "welcomed", () -> up.stats().connected())
                .compose(v -> up.close())
                .compose(v -> Await.until(vertx, "the gateway to see the close", () -> conn(0).closed))
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals((short) 1000, conn(0).closeCode);
                    assertFalse(up.stats().connected());
                    up.send(sample(61));
                    assertEquals(1, gateway.connections.size());
                    ctx.completeNow();
                })));
    }
}
