package io.gpuwatch.probe.trace;

import io.gpuwatch.probe.uplink.Await;
import io.gpuwatch.probe.uplink.Backoff;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static io.gpuwatch.probe.trace.Frames.T0;
import static io.gpuwatch.probe.trace.Frames.hello;
import static io.gpuwatch.probe.trace.Frames.sample;
import static io.gpuwatch.probe.trace.Frames.xid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
@Timeout(value = 20, timeUnit = TimeUnit.SECONDS)
class ReplayRunnerTest {
    private static final long HOUR = 3_600_000;

    @TempDir
    Path dir;

    private static TraceRoundTripTest.Line line(String node, Frame f) {
        return new TraceRoundTripTest.Line(node, f);
    }

    private Path trace(String name, List<TraceRoundTripTest.Line> lines) throws IOException {
        Path file = dir.resolve(name);
        try (TraceWriter w = TraceWriter.open(file)) {
            TraceRoundTripTest.write(w, lines);
        }
        return file;
    }

    private static ReplayRunner runner(Vertx vertx, Path trace, int port, ReplaySpeed speed, LongSupplier clock) {
        return new ReplayRunner(vertx, trace, node -> UplinkConfig.of("localhost", port, ReplayGateway.token(node))
                .withBackoff(new Backoff(10, 40)), speed, clock);
    }

    /** Two nodes sampling every 250 ms for a second, one XID between. */
    private static List<TraceRoundTripTest.Line> twoNodes() {
        List<TraceRoundTripTest.Line> out = new ArrayList<>(List.of(
                line("gpu-a17", hello("gpu-a17", "boot-a")), line("gpu-b02", hello("gpu-b02", "boot-b"))));
        long seqA = 0;
        for (int i = 0; i < 5; i++) {
            out.add(line("gpu-a17", sample("gpu-a17", ++seqA, T0 + i * 250L, 70 + i)));
            out.add(line("gpu-b02", sample("gpu-b02", i + 1, T0 + i * 250L + 5, 60 + i)));
            if (i == 2) {
                out.add(line("gpu-a17", xid("gpu-a17", ++seqA, T0 + 600, 79)));
            }
        }
        return out;
    }

    @Test
    void sendsEachNodesHelloThenItsFramesInOrderRebasedOntoNowAtTheGivenSpeed(Vertx vertx, VertxTestContext ctx)
            throws IOException {
        List<TraceRoundTripTest.Line> lines = twoNodes();
        Path file = trace("fleet.jsonl.gz", lines);
        LongSupplier clock = System::currentTimeMillis;
        ReplayGateway gateway = new ReplayGateway(vertx, clock);
        gateway.start()
                .compose(port -> runner(vertx, file, port, new ReplaySpeed(10), clock).run())
                .onComplete(ctx.succeeding(report -> ctx.verify(() -> {
                    for (String node : List.of("gpu-a17", "gpu-b02")) {
                        List<ReplayGateway.Connection> conns = gateway.of(node);
                        assertEquals(1, conns.size(), node + " connects once");
                        ReplayGateway.Connection c = conns.get(0);
                        List<TraceRoundTripTest.Line> mine = lines.stream().filter(l -> l.node().equals(node)).toList();
                        assertEquals(mine.get(0).frame(), c.hello(), "the hello is the trace's");
                        List<Frame> expected = new ArrayList<>();
                        for (int i = 1; i < mine.size(); i++) {
                            Frame f = mine.get(i).frame();
                            long rebased = report.origin() + (FrameStamps.ts(f) - T0) / 10;
                            expected.add(FrameStamps.withTs(FrameStamps.withSeq(f, i), rebased));
                        }
                        assertEquals(expected, c.numbered());
                        for (int i = 0; i < expected.size(); i++) {
                            assertTrue(c.arrivals.get(i + 1) >= FrameStamps.ts(expected.get(i)),
                                    "frame " + i + " of " + node + " is not sent before its replayed time");
                        }
                    }
                    assertEquals(Map.of("gpu-a17", 6L, "gpu-b02", 5L), report.sentByNode());
                    assertEquals(11, report.framesSent());
                    assertEquals(2, report.boots());
                    assertEquals(0, report.unacked());
                    assertTrue(report.complete());
                    assertEquals("replayed 11 frames of 2 nodes; all acknowledged", report.summary());
                    ctx.completeNow();
                })));
    }

    @Test
    void atMaxSpeedFramesGoWithoutWaitingStampedWhenSent(Vertx vertx, VertxTestContext ctx) throws IOException {
        // hours apart in the trace; the clock only moves when read
        Path file = trace("slow.jsonl", List.of(line("gpu-a17", hello("gpu-a17", "boot-a")),
                line("gpu-a17", sample("gpu-a17", 1, T0, 70)),
                line("gpu-a17", xid("gpu-a17", 2, T0 + HOUR, 79)),
                line("gpu-a17", sample("gpu-a17", 3, T0 + 2 * HOUR, 71))));
        AtomicLong now = new AtomicLong(T0 + 30 * 24 * HOUR);
        LongSupplier clock = now::incrementAndGet;
        ReplayGateway gateway = new ReplayGateway(vertx, clock);
        gateway.start()
                .compose(port -> runner(vertx, file, port, ReplaySpeed.MAX, clock).run())
                .onComplete(ctx.succeeding(report -> ctx.verify(() -> {
                    List<Frame> got = gateway.of("gpu-a17").get(0).numbered();
                    assertEquals(List.of(1L, 2L, 3L), got.stream().map(Frame::seq).toList());
                    long previous = report.origin();
                    for (Frame f : got) {
                        long ts = FrameStamps.ts(f);
                        assertTrue(ts > previous, "stamped with the clock when sent, in order");
                        previous = ts;
                    }
                    assertTrue(previous - report.origin() < HOUR, "no waiting for the trace's hours");
                    assertEquals(xid("gpu-a17", 2, FrameStamps.ts(got.get(1)), 79), got.get(1));
                    assertTrue(report.complete());
                    ctx.completeNow();
                })));
    }

    @Test
    void aRestartInTheTraceIsANewStreamOpenedOnceTheOldIsAcknowledged(Vertx vertx, VertxTestContext ctx)
            throws IOException {
        Path file = trace("restart.jsonl", List.of(
                line("gpu-a17", hello("gpu-a17", "boot-1")),
                line("gpu-a17", sample("gpu-a17", 1, T0, 70)),
                line("gpu-a17", sample("gpu-a17", 2, T0 + 1000, 71)),
                line("gpu-a17", hello("gpu-a17", "boot-2")),
                line("gpu-a17", sample("gpu-a17", 1, T0 + 60_000, 40)),
                line("gpu-a17", hello("gpu-a17", "boot-2")),
                line("gpu-a17", xid("gpu-a17", 2, T0 + 61_000, 48))));
        ReplayGateway gateway = new ReplayGateway(vertx, System::currentTimeMillis);
        gateway.start()
                .compose(port -> runner(vertx, file, port, ReplaySpeed.MAX, System::currentTimeMillis).run())
                .onComplete(ctx.succeeding(report -> ctx.verify(() -> {
                    List<ReplayGateway.Connection> conns = gateway.of("gpu-a17");
                    assertEquals(2, conns.size(), "one connection per boot; a repeated hello of a boot adds none");
                    assertEquals("boot-1", conns.get(0).hello().bootId());
                    assertEquals(List.of(1L, 2L), conns.get(0).numbered().stream().map(Frame::seq).toList());
                    assertEquals((short) 1000, conns.get(0).closeCode, "the old boot's connection is closed first");
                    assertEquals("boot-2", conns.get(1).hello().bootId());
                    assertEquals(List.of("sample", "event"), conns.get(1).numbered().stream().map(Frame::type).toList());
                    assertEquals(List.of(1L, 2L), conns.get(1).numbered().stream().map(Frame::seq).toList());
                    assertEquals(2, report.boots());
                    assertEquals(Map.of("gpu-a17", 4L), report.sentByNode());
                    assertTrue(report.complete());
                    ctx.completeNow();
                })));
    }

    @Test
    void badLinesAreReportedWithTheirPlaceAndSkipped(Vertx vertx, VertxTestContext ctx) throws IOException {
        FrameCodec codec = new FrameCodec();
        Path file = dir.resolve("bad.jsonl");
        Files.writeString(file, String.join("\n",
                codec.encode(hello("gpu-a17", "boot-a")),
                codec.encode(sample("gpu-a17", 1, T0, 70), "gpu-a17"),
                "{\"type\":\"event\",\"seq\":2,\"node\":\"gpu-a17\",\"ts\":1764700000100,\"kind\":\"XID\"}",
                codec.encode(sample("gpu-a17", 3, T0 + 200, 71), "gpu-a17")) + "\n");
        List<String> errors = new CopyOnWriteArrayList<>();
        ReplayGateway gateway = new ReplayGateway(vertx, System::currentTimeMillis);
        gateway.start()
                .compose(port -> runner(vertx, file, port, ReplaySpeed.MAX, System::currentTimeMillis)
                        .errorHandler(e -> errors.add(e.toString())).run())
                .onComplete(ctx.succeeding(report -> ctx.verify(() -> {
                    assertEquals(List.of(file + ":3: field 'kind' must be lower snake case like 'process_exit', got \"XID\""),
                            errors);
                    assertEquals(List.of("sample", "sample"),
                            gateway.of("gpu-a17").get(0).numbered().stream().map(Frame::type).toList());
                    assertEquals(1, report.badLines());
                    assertEquals(2, report.framesSent());
                    assertFalse(report.complete());
                    assertEquals("replayed 2 frames of 1 node; all acknowledged; 1 bad line skipped", report.summary());
                    ctx.completeNow();
                })));
    }

    @Test
    void endsAfterTheAckTimeoutWhenTheGatewayDoesNotAcknowledge(Vertx vertx, VertxTestContext ctx)
            throws IOException {
        Path file = trace("unacked.jsonl", List.of(line("gpu-a17", hello("gpu-a17", "boot-a")),
                line("gpu-a17", sample("gpu-a17", 1, T0, 70)),
                line("gpu-a17", sample("gpu-a17", 2, T0 + 1000, 71)),
                line("gpu-a17", sample("gpu-a17", 3, T0 + 2000, 72))));
        ReplayGateway gateway = new ReplayGateway(vertx, System::currentTimeMillis);
        gateway.ack = false;
        // the replay's time stands still until the gateway holds every frame: the timeout runs from then on
        long start = System.currentTimeMillis();
        LongSupplier clock = () -> gateway.of("gpu-a17").size() == 1
                && gateway.of("gpu-a17").get(0).numbered().size() == 3 ? System.currentTimeMillis() : start;
        gateway.start()
                .compose(port -> runner(vertx, file, port, ReplaySpeed.MAX, clock).ackTimeout(150).run())
                .onComplete(ctx.succeeding(report -> ctx.verify(() -> {
                    assertEquals(3, gateway.of("gpu-a17").get(0).numbered().size(), "everything was sent");
                    assertEquals(3, report.unacked());
                    assertFalse(report.stopped());
                    assertFalse(report.complete());
                    assertEquals("replayed 3 frames of 1 node; 3 not acknowledged", report.summary());
                    ctx.completeNow();
                })));
    }

    @Test
    void aBootTheGatewayHasSeenDropsItsOldSeqsUnlessTheReplayGetsABootSuffix(Vertx vertx, VertxTestContext ctx)
            throws IOException {
        Path file = trace("twice.jsonl", List.of(line("gpu-a17", hello("gpu-a17", "boot-a")),
                line("gpu-a17", sample("gpu-a17", 1, T0, 70)),
                line("gpu-a17", xid("gpu-a17", 2, T0 + 100, 79))));
        ReplayGateway gateway = new ReplayGateway(vertx, System::currentTimeMillis);
        gateway.start().compose(port -> runner(vertx, file, port, ReplaySpeed.MAX, System::currentTimeMillis).run()
                        .compose(first -> runner(vertx, file, port, ReplaySpeed.MAX, System::currentTimeMillis).run())
                        .compose(second -> runner(vertx, file, port, ReplaySpeed.MAX, System::currentTimeMillis)
                                .bootSuffix("r3").run()))
                .onComplete(ctx.succeeding(third -> ctx.verify(() -> {
                    List<ReplayGateway.Connection> conns = gateway.of("gpu-a17");
                    assertEquals(3, conns.size());
                    assertEquals(2, conns.get(0).numbered().size());
                    assertEquals(0, conns.get(1).numbered().size(), "the gateway already holds seqs 1 and 2 of boot-a");
                    assertEquals("boot-a-r3", conns.get(2).hello().bootId());
                    assertEquals(List.of(1L, 2L), conns.get(2).numbered().stream().map(Frame::seq).toList());
                    ctx.completeNow();
                })));
    }

    @Test
    void closeStopsAReplayMidwayAndReportsWhatWasSent(Vertx vertx, VertxTestContext ctx) throws IOException {
        Path file = trace("long.jsonl", List.of(line("gpu-a17", hello("gpu-a17", "boot-a")),
                line("gpu-a17", sample("gpu-a17", 1, T0, 70)),
                line("gpu-a17", sample("gpu-a17", 2, T0 + HOUR, 71))));
        ReplayGateway gateway = new ReplayGateway(vertx, System::currentTimeMillis);
        gateway.start().compose(port -> {
            ReplayRunner r = runner(vertx, file, port, ReplaySpeed.REALTIME, System::currentTimeMillis);
            Future<ReplayReport> done = r.run();
            return Await.until(vertx, "the first sample", () -> gateway.of("gpu-a17").size() == 1
                    && gateway.of("gpu-a17").get(0).numbered().size() == 1).compose(v -> r.close()).compose(v -> done);
        }).onComplete(ctx.succeeding(report -> ctx.verify(() -> {
            assertTrue(report.stopped());
            assertEquals(Map.of("gpu-a17", 1L), report.sentByNode());
            assertTrue(report.summary().startsWith("replayed 1 frame of 1 node; stopped before the end of the trace"),
                    report.summary());
            ctx.completeNow();
        })));
    }

    @Test
    void aMissingTraceEndsAtOnceWithTheReason(Vertx vertx, VertxTestContext ctx) {
        Path file = dir.resolve("nowhere.jsonl");
        List<String> errors = new CopyOnWriteArrayList<>();
        runner(vertx, file, 1, ReplaySpeed.MAX, System::currentTimeMillis).errorHandler(e -> errors.add(e.toString()))
                .run().onComplete(ctx.succeeding(report -> ctx.verify(() -> {
                    assertEquals(List.of(file + ": cannot read: no such file"), errors);
                    assertEquals(file + ": cannot read: no such file", report.traceFailure());
                    assertEquals(0, report.framesSent());
                    assertTrue(report.sentByNode().isEmpty());
                    ctx.completeNow();
                })));
    }
}
