package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.digest.DigestChannel;
import io.gpuwatch.gateway.digest.DigestSchedule;
import io.gpuwatch.gateway.digest.Digests;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.notify.receiver.chat.ReportTarget;
import io.gpuwatch.notify.render.Report;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A digest's chart is served where its message points, for chat services to fetch. */
@ExtendWith(VertxExtension.class)
class DigestChartRouteTest {
    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void chartOfADigestIsAPngAtItsUrlAndOthersAre404(Vertx vertx) throws Exception {
        AtomicLong now = new AtomicLong(Instant.parse("2026-12-03T08:10:00Z").toEpochMilli());
        List<Report> posted = new ArrayList<>();
        ReportTarget slackLike = new ReportTarget() {
            @Override
            public String name() {
                return "ops-slack";
            }

            @Override
            public boolean showsImages() {
                return true;
            }

            @Override
            public Future<Void> post(Report report) {
                posted.add(report);
                return Future.succeededFuture();
            }
        };
        Digests digests = new Digests(List.of(new DigestChannel("ops-slack",
                new DigestSchedule.Every(Duration.ofHours(1), ZoneOffset.UTC), slackLike)),
                () -> Instant.ofEpochMilli(now.get()), "https://gw.example.com", Pricing.NONE);
        Gateway gateway = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000,
                "http://localhost"), RuleSet.empty(), RuleFiles.none(), () -> null, List.of(), null,
                () -> Instant.ofEpochMilli(now.get())).digests(digests);
        await(vertx.deployVerticle(gateway));
        now.set(Instant.parse("2026-12-03T09:00:00Z").toEpochMilli());
        await(digests.tick());
        String url = posted.get(0).chartUrl();
        String path = url.substring("https://gw.example.com".length());

        WebClient web = WebClient.create(vertx);
        HttpResponse<Buffer> png = await(web.get(gateway.port(), "127.0.0.1", path).send());
        assertEquals(200, png.statusCode());
        assertEquals("image/png", png.getHeader("Content-Type"));
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(png.body().getBytes()));
        assertTrue(image.getWidth() > 0 && image.getHeight() > 0);

        HttpResponse<Buffer> missing = await(web.get(gateway.port(), "127.0.0.1",
                "/api/v1/digests/not-a-digest/chart.png").send());
        assertEquals(404, missing.statusCode());
    }
}
