package io.gpuwatch.notify.receiver.console;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Notification.Status;
import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConsoleReceiverTest {
    private static final Map<String, String> XID_LABELS =
            Map.of("alertname", "xid-fallen-off-bus", "severity", "page", "uuid", "GPU-1111", "node", "node-01");
    private static final Map<String, String> XID_TEXT =
            Map.of("summary", "GPU-1111 on node-01 fell off the bus (XID 79)", "description", "longer text");
    private static final Notification FIRING = new Notification("fp1", Status.FIRING, XID_LABELS, XID_TEXT,
            Instant.parse("2026-12-03T09:01:02.345Z"), null, "");
    private static final Notification RESOLVED = new Notification("fp1", Status.RESOLVED, XID_LABELS, XID_TEXT,
            Instant.parse("2026-12-03T09:01:02Z"), Instant.parse("2026-12-03T09:03:12Z"), "");

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-12-03T09:01:02.600Z"));

    private ConsoleReceiver receiver() {
        return new ConsoleReceiver("console", out, false, CLOCK);
    }

    private List<String> lines() {
        return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void firingAlertIsOneAlignedLine() {
        assertTrue(receiver().send(List.of(FIRING)).succeeded());
        assertEquals(List.of("2026-12-03T09:01:02Z FIRING   page  xid-fallen-off-bus  node=node-01 uuid=GPU-1111"
                + "  GPU-1111 on node-01 fell off the bus (XID 79)"), lines());
    }

    @Test
    void anAlertThatHeldForAWhileSaysSinceWhenItWasActive() {
        new ConsoleReceiver("console", out, false, InstantSource.fixed(Instant.parse("2026-12-03T09:03:02Z")))
                .send(List.of(FIRING));
        assertEquals(List.of("2026-12-03T09:03:02Z FIRING   page  xid-fallen-off-bus  node=node-01 uuid=GPU-1111"
                + "  GPU-1111 on node-01 fell off the bus (XID 79) (active since 2026-12-03T09:01:02Z)"), lines());
    }

    @Test
    void resolvedAlertShowsItsEndAndHowLongItLasted() {
        receiver().send(List.of(RESOLVED));
        assertEquals(List.of("2026-12-03T09:03:12Z RESOLVED page  xid-fallen-off-bus  node=node-01 uuid=GPU-1111"
                + "  GPU-1111 on node-01 fell off the bus (XID 79) (after 2m10s)"), lines());
    }

    @Test
    void batchWritesOneLinePerAlertInOrder() {
        receiver().send(List.of(FIRING, RESOLVED));
        List<String> lines = lines();
        assertEquals(2, lines.size());
        assertTrue(lines.get(0).contains(" FIRING "));
        assertTrue(lines.get(1).contains(" RESOLVED "));
    }

    @Test
    void fallsBackToDescriptionAndPlaceholders() {
        Notification bare = new Notification("fp2", Status.FIRING, Map.of("node", "node-07"),
                Map.of("description", "node-07 silent for 30 s"), Instant.parse("2026-12-03T10:00:00Z"), null, "");
        new ConsoleReceiver("console", out, false, InstantSource.fixed(Instant.parse("2026-12-03T10:00:00.200Z")))
                .send(List.of(bare));
        assertEquals(List.of("2026-12-03T10:00:00Z FIRING   -  -  node=node-07  node-07 silent for 30 s"), lines());
    }

    @Test
    void hostileTextStaysOnOneLineAndCannotDriveTheTerminal() {
        Notification hostile = new Notification("fp3", Status.FIRING,
                Map.of("alertname", "x", "severity", "page", "job", "a b\"c"),
                Map.of("summary", "line one\nline two\u001b[2J"), Instant.parse("2026-12-03T10:00:00Z"), null, "");
        receiver().send(List.of(hostile));
        List<String> lines = lines();
        assertEquals(1, lines.size());
        assertFalse(lines.get(0).contains("\u001b"));
        assertTrue(lines.get(0).contains("job=\"a b\\\"c\""), lines.get(0));
        assertTrue(lines.get(0).endsWith("line one line two [2J"), lines.get(0));
    }

    @Test
    void plainByDefaultColouredOnlyWhenAsked() {
        receiver().send(List.of(FIRING));
        assertFalse(bytes.toString(StandardCharsets.UTF_8).contains("\u001b["));
        bytes.reset();
        new ConsoleReceiver("tty", out, true, CLOCK).send(List.of(FIRING, RESOLVED));
        List<String> lines = lines();
        assertTrue(lines.get(0).startsWith("2026-12-03T09:01:02Z \u001b[1;31mFIRING\u001b[0m   page  "), lines.get(0));
        assertTrue(lines.get(1).startsWith("2026-12-03T09:03:12Z \u001b[32mRESOLVED\u001b[0m page  "), lines.get(1));
    }

    @Test
    void brokenStreamFailsTheDelivery() {
        PrintStream broken = new PrintStream(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("disk full");
            }
        }, true, StandardCharsets.UTF_8);
        Future<Void> result = new ConsoleReceiver("console", broken, false, CLOCK).send(List.of(FIRING));
        assertTrue(result.failed());
        DeliveryFailure failure = assertInstanceOf(DeliveryFailure.class, result.cause());
        assertEquals("console", failure.receiver());
        assertFalse(failure.retryable());
    }

    @Test
    void durationsReadLikeGo() {
        assertEquals("850ms", ConsoleReceiver.duration(Duration.ofMillis(850)));
        assertEquals("0s", ConsoleReceiver.duration(Duration.ZERO));
        assertEquals("45s", ConsoleReceiver.duration(Duration.ofSeconds(45)));
        assertEquals("2m", ConsoleReceiver.duration(Duration.ofMinutes(2)));
        assertEquals("1h5s", ConsoleReceiver.duration(Duration.ofSeconds(3605)));
        assertEquals("26h3m1s", ConsoleReceiver.duration(Duration.ofSeconds(26 * 3600 + 181)));
        assertEquals("0s", ConsoleReceiver.duration(Duration.ofSeconds(-5)));
    }
}
