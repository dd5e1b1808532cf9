package io.gpuwatch.gateway.digest;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.coverage.CoverageBook;
import io.gpuwatch.gateway.ledger.AlertLedger;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.receiver.chat.ReportTarget;
import io.gpuwatch.notify.render.Report;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.Transition;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The digest names a node that stopped sending signals it sent at the previous digest, and only such a node. */
@ExtendWith(VertxExtension.class)
class DigestCoverageTest {
    private static final Instant T0 = Instant.parse("2026-12-03T08:20:00Z");

    /** A channel that keeps every report. */
    private static final class Channel implements ReportTarget {
        final List<Report> reports = new ArrayList<>();

        @Override
        public String name() {
            return "ops";
        }

        @Override
        public boolean showsImages() {
            return false;
        }

        @Override
        public Future<Void> post(Report report) {
            reports.add(report);
            return Future.succeededFuture();
        }
    }

    /** A ledger with no alerts. */
    private static final class Ledger implements AlertLedger {
        @Override
        public void apply(Transition transition, Consumer<Notification> out) {
            throw new UnsupportedOperationException("digests only read the ledger");
        }

        @Override
        public List<Alert> live() {
            return List.of();
        }

        @Override
        public List<Alert> history() {
            return List.of();
        }

        @Override
        public Alert pending(Transition t) {
            throw new UnsupportedOperationException("digests only read the ledger");
        }

        @Override
        public Notification notification(Alert alert) {
            throw new UnsupportedOperationException("digests only read the ledger");
        }
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** A minute of 1 Hz samples of both nodes ending at {@code end}; n1's carry smActive while {@code profiled}. */
    private static void minute(CoverageBook book, Instant end, boolean profiled) {
        for (int s = 60; s > 0; s--) {
            long at = end.toEpochMilli() - s * 1000L;
            MetricValues.Builder v = MetricValues.builder().set(Metric.GPU_UTIL, 90);
            if (profiled) {
                v.set(Metric.SM_ACTIVE, 0.6);
            }
            book.frame("n1", new Sample(at, at, List.of(new CardReading("GPU-1", v.build(), List.of()))), at);
            book.frame("n2", new Sample(at, at, List.of(new CardReading("GPU-2", MetricValues.builder()
                    .set(Metric.GPU_UTIL, 90).set(Metric.SM_ACTIVE, 0.6).build(), List.of()))), at);
        }
    }

    @Test
    void aNodeThatLostProfilingSinceTheLastDigestIsNamed(Vertx vertx) throws Exception {
        AtomicLong now = new AtomicLong(T0.toEpochMilli());
        FleetState fleet = new FleetState();
        for (String n : List.of("n1", "n2")) {
            fleet.hello(new Hello(1, n, "b1", "test", "550.54", null, Map.of("pool", "rented"),
                    List.of(new CardInfo(n.equals("n1") ? "GPU-1" : "GPU-2", 0, "H100", null, null, null, null,
                            null))), T0.toEpochMilli());
        }
        CoverageBook book = new CoverageBook(CoverageBook.DEFAULT_WINDOW_MS);
        Channel channel = new Channel();
        Digests d = new Digests(List.of(new DigestChannel("ops", new DigestSchedule.Every(Duration.ofHours(1),
                ZoneOffset.UTC), channel)), () -> Instant.ofEpochMilli(now.get()), null, Pricing.NONE);
        d.attach(vertx, new Digests.Sources(Ledger::new, fleet, book));

        Instant nine = Instant.parse("2026-12-03T09:00:00Z");
        minute(book, nine, true);
        now.set(nine.toEpochMilli());
        await(d.tick());
        assertTrue(channel.reports.get(0).sections().stream().noneMatch(s -> s.heading().startsWith("Coverage")),
                "nothing dropped since the start");

        // a driver update on n1 lost profiling; n2 is unchanged
        Instant ten = Instant.parse("2026-12-03T10:00:00Z");
        minute(book, ten, false);
        now.set(ten.toEpochMilli());
        await(d.tick());
        Report.Section dropped = channel.reports.get(1).sections().stream()
                .filter(s -> s.heading().startsWith("Coverage")).findFirst().orElseThrow();
        assertEquals("Coverage dropped (1)", dropped.heading());
        assertEquals(List.of("n1 no longer sends smActive"), dropped.lines());

        // the next digest compares with the last one: n1's coverage did not drop again
        Instant eleven = Instant.parse("2026-12-03T11:00:00Z");
        minute(book, eleven, false);
        now.set(eleven.toEpochMilli());
        await(d.tick());
        assertTrue(channel.reports.get(2).sections().stream().noneMatch(s -> s.heading().startsWith("Coverage")));
    }
}
