package io.gpuwatch.gateway.digest;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.ledger.AlertLedger;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.receiver.chat.ReportTarget;
import io.gpuwatch.notify.render.Report;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.Transition;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javax.imageio.ImageIO;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The schedule driven by a stepped clock, with the digests' channels recording what they were given. */
@ExtendWith(VertxExtension.class)
class DigestsTest {
    private static final Instant T0 = Instant.parse("2026-12-03T08:20:00Z");
    private static final long MIN = 60_000;

    /** A channel that keeps every report and fails while told to. */
    private static final class Channel implements ReportTarget {
        final List<Report> reports = new ArrayList<>();
        final boolean images;
        boolean failing;

        Channel(boolean images) {
            this.images = images;
        }

        @Override
        public String name() {
            return "ops";
        }

        @Override
        public boolean showsImages() {
            return images;
        }

        @Override
        public Future<Void> post(Report report) {
            reports.add(report);
            return failing ? Future.failedFuture(new DeliveryFailure("ops", 1, "503 from the fake", true))
                    : Future.succeededFuture();
        }
    }

    /** A ledger whose alerts the test sets. */
    private static final class Ledger implements AlertLedger {
        final List<Alert> live = new ArrayList<>();
        final List<Alert> history = new ArrayList<>();

        @Override
        public void apply(Transition transition, Consumer<Notification> out) {
            throw new UnsupportedOperationException("digests only read the ledger");
        }

        @Override
        public List<Alert> live() {
            return List.copyOf(live);
        }

        @Override
        public List<Alert> history() {
            return List.copyOf(history);
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

    private final AtomicLong now = new AtomicLong(T0.toEpochMilli());
    private final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    private final Ledger ledger = new Ledger();

    private Digests digests(Channel channel, String publicUrl, Vertx vertx) {
        Digests d = new Digests(List.of(new DigestChannel("ops", new DigestSchedule.Every(Duration.ofHours(1),
                ZoneOffset.UTC), channel)), clock, publicUrl, Pricing.NONE);
        d.attach(vertx, new Digests.Sources(() -> ledger, new FleetState()));
        return d;
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static Alert firing(String rule, String severity, long at) {
        return new Alert(rule + at, rule, severity, Map.of("alertname", rule, "node", "n1"), Map.of(), at, at, 0,
                AlertState.FIRING);
    }

    @Test
    void nothingBeforeTheHourThenOneDigestCoveringSinceTheStart(Vertx vertx) throws Exception {
        Channel channel = new Channel(false);
        Digests d = digests(channel, null, vertx);
        ledger.live.add(firing("xid-fallen-off-bus", "page", T0.toEpochMilli() + 5 * MIN));
        now.set(Instant.parse("2026-12-03T08:59:59Z").toEpochMilli());
        assertEquals(List.of(), await(d.tick()));
        assertEquals(0, channel.reports.size());

        now.set(Instant.parse("2026-12-03T09:00:00Z").toEpochMilli());
        List<Digests.Sent> sent = await(d.tick());
        assertEquals(1, sent.size());
        assertTrue(sent.get(0).delivered());
        Report r = channel.reports.get(0);
        assertEquals("2026-12-03 08:20 – 09:00 UTC", r.period());
        assertEquals("gpuwatch digest: 1 firing, 0 resolved, 0 to inspect", r.title());
        assertNull(r.chartUrl(), "no public URL, no chart");

        // the next period starts where this one ended and is due on the next hour
        now.set(Instant.parse("2026-12-03T09:30:00Z").toEpochMilli());
        assertEquals(List.of(), await(d.tick()));
        now.set(Instant.parse("2026-12-03T10:00:01Z").toEpochMilli());
        await(d.tick());
        assertEquals("2026-12-03 09:00 – 10:00 UTC", channel.reports.get(1).period());
    }

    @Test
    void aDigestNotDeliveredIsFoldedIntoTheNext(Vertx vertx) throws Exception {
        Channel channel = new Channel(false);
        Digests d = digests(channel, null, vertx);
        channel.failing = true;
        now.set(Instant.parse("2026-12-03T09:00:00Z").toEpochMilli());
        assertFalse(await(d.tick()).get(0).delivered());
        channel.failing = false;
        now.set(Instant.parse("2026-12-03T10:00:00Z").toEpochMilli());
        assertTrue(await(d.tick()).get(0).delivered());
        assertEquals("2026-12-03 08:20 – 10:00 UTC", channel.reports.get(1).period());
    }

    @Test
    void imageChannelWithAPublicUrlGetsAChartTheGatewayKeeps(Vertx vertx) throws Exception {
        Channel channel = new Channel(true);
        Digests d = digests(channel, "https://gw.example.com/", vertx);
        ledger.live.add(firing("gpu-hot", "ticket", T0.toEpochMilli()));
        now.set(Instant.parse("2026-12-03T09:00:00Z").toEpochMilli());
        await(d.tick());
        String url = channel.reports.get(0).chartUrl();
        assertNotNull(url);
        assertTrue(url.matches("https://gw\\.example\\.com/api/v1/digests/[0-9a-f-]{36}/chart\\.png"), url);
        String id = url.replaceAll(".*/digests/([^/]+)/chart\\.png", "$1");
        BufferedImage png = ImageIO.read(new ByteArrayInputStream(d.chart(id).orElseThrow()));
        assertEquals(Digests.CHART_WIDTH, png.getWidth());
        assertEquals(Digests.CHART_HEIGHT, png.getHeight());
        assertTrue(d.chart("no-such-id").isEmpty());
    }

    @Test
    void textChannelGetsTheSparklineEvenWithAPublicUrl(Vertx vertx) throws Exception {
        Channel channel = new Channel(false);
        Digests d = digests(channel, "https://gw.example.com", vertx);
        ledger.live.add(firing("gpu-hot", "ticket", T0.toEpochMilli() + 30 * MIN));
        now.set(Instant.parse("2026-12-03T09:00:00Z").toEpochMilli());
        await(d.tick());
        Report r = channel.reports.get(0);
        assertNull(r.chartUrl());
        // the alert fired 30 of the period's 40 minutes in: the last quarter of the slices
        String bars = r.trend().replaceAll("firing alerts (\\S+) .*", "$1");
        assertEquals("▁".repeat(Digests.SLICES / 4 * 3) + "█".repeat(Digests.SLICES / 4), bars);
    }

    @Test
    void sendNowCoversThePeriodSoFar(Vertx vertx) throws Exception {
        Channel channel = new Channel(false);
        Digests d = digests(channel, null, vertx);
        now.set(Instant.parse("2026-12-03T08:35:00Z").toEpochMilli());
        assertEquals(1, await(d.sendNow("ops")).size());
        assertEquals("2026-12-03 08:20 – 08:35 UTC", channel.reports.get(0).period());
        assertEquals(List.of(), await(d.sendNow("someone-else")));
    }
}
