package io.gpuwatch.probe.app;

import io.gpuwatch.probe.uplink.Await;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Metric;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
@Timeout(value = 20, timeUnit = TimeUnit.SECONDS)
class AppScraperTest {
    private static final Path SCRAPES = Path.of("src", "test", "resources", "scrape");
    private static final long T0 = 1_764_700_000_000L;
    private final AtomicLong clock = new AtomicLong(T0);
    private final List<Frame> frames = new CopyOnWriteArrayList<>();
    /** What the test server answers next: a fixture's text, or an HTTP status. */
    private final AtomicReference<String> body = new AtomicReference<>();
    private final AtomicInteger status = new AtomicInteger(200);

    private static String fixture(String name) {
        try {
            return Files.readString(SCRAPES.resolve(name));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private Future<HttpServer> server(Vertx vertx) {
        return vertx.createHttpServer().requestHandler(req -> {
            if (status.get() == 0) {
                return; // never answers
            }
            req.response().setStatusCode(status.get()).putHeader("Content-Type", "text/plain; version=0.0.4")
                    .end(body.get());
        }).listen(0);
    }

    private AppScraper scraper(Vertx vertx, String url, Duration timeout) {
        ScrapeConfig config = new ScrapeConfig(Duration.ofSeconds(10), timeout,
                List.of(new ScrapeTarget("svc-chat-70b", "chat", InferenceServer.VLLM, url, null)));
        return new AppScraper(vertx, config, clock::get, frames::add);
    }

    private List<Event> events() {
        return frames.stream().filter(f -> f instanceof Event).map(f -> (Event) f).toList();
    }

    private List<App> apps() {
        return frames.stream().filter(f -> f instanceof App).map(f -> (App) f).toList();
    }

    /** Sets what the server answers, then runs one round with the clock moved on by 10 s. */
    private Future<Void> round(AppScraper s, int code, String text) {
        status.set(code);
        body.set(text);
        clock.addAndGet(10_000);
        return s.scrapeAll();
    }

    @Test
    void twoScrapesGiveTwoFramesWithRatesOnTheSecond(Vertx vertx, VertxTestContext ctx) {
        server(vertx).compose(srv -> {
            AppScraper s = scraper(vertx, "http://localhost:" + srv.actualPort() + "/metrics", Duration.ofSeconds(3));
            return round(s, 200, fixture("vllm-1.txt"))
                    .compose(v -> round(s, 200, fixture("vllm-2.txt")))
                    .compose(v -> s.stop());
        }).onComplete(ctx.succeeding(v -> ctx.verify(() -> {
            assertEquals(List.of(), events());
            List<App> apps = apps();
            assertEquals(2, apps.size());
            assertEquals(T0 + 10_000, apps.get(0).ts());
            assertEquals("svc-chat-70b", apps.get(0).task());
            assertEquals("chat", apps.get(0).business());
            assertEquals("vllm", apps.get(0).source());
            assertFalse(apps.get(0).values().has(Metric.TOKENS_PER_SEC));
            assertEquals(5120, apps.get(1).values().get(Metric.TOKENS_PER_SEC), 1e-9);
            assertEquals(1750, apps.get(1).values().get(Metric.TTFT_P99_MS), 1e-9);
            ctx.completeNow();
        })));
    }

    @Test
    void aTargetThatIsDownIsReportedOncePerEpisode(Vertx vertx, VertxTestContext ctx) {
        server(vertx).compose(srv -> srv.close().map(srv.actualPort())).compose(port -> {
            AppScraper s = scraper(vertx, "http://localhost:" + port + "/metrics", Duration.ofSeconds(3));
            return round(s, 200, "").compose(v -> round(s, 200, "")).compose(v -> round(s, 200, ""))
                    .compose(v -> s.stop()).map(port);
        }).onComplete(ctx.succeeding(port -> ctx.verify(() -> {
            List<Event> events = events();
            assertEquals(1, events.size(), () -> "expected one report, got " + events);
            Event e = events.get(0);
            assertEquals("probe_degraded", e.kind());
            assertEquals(T0 + 10_000, e.ts());
            assertTrue(e.text().startsWith("app scrape of task 'svc-chat-70b' (vllm at http://localhost:" + port
                    + "/metrics) failing: cannot connect"), e.text());
            assertEquals(List.of(), apps());
            ctx.completeNow();
        })));
    }

    @Test
    void aNewEpisodeAfterARecoveryIsReportedAgain(Vertx vertx, VertxTestContext ctx) {
        server(vertx).compose(srv -> {
            AppScraper s = scraper(vertx, "http://localhost:" + srv.actualPort() + "/metrics", Duration.ofSeconds(3));
            return round(s, 503, "overloaded").compose(v -> round(s, 503, "overloaded"))
                    .compose(v -> round(s, 200, fixture("vllm-1.txt")))
                    .compose(v -> round(s, 500, "boom"))
                    .compose(v -> s.stop());
        }).onComplete(ctx.succeeding(v -> ctx.verify(() -> {
            List<String> texts = events().stream().map(Event::text).toList();
            assertEquals(2, texts.size(), () -> "got " + texts);
            assertTrue(texts.get(0).endsWith("failing: answered HTTP 503"), texts.get(0));
            assertTrue(texts.get(1).endsWith("failing: answered HTTP 500"), texts.get(1));
            assertEquals(1, apps().size());
            ctx.completeNow();
        })));
    }

    @Test
    void aTargetThatDoesNotAnswerInTimeFails(Vertx vertx, VertxTestContext ctx) {
        server(vertx).compose(srv -> {
            AppScraper s = scraper(vertx, "http://localhost:" + srv.actualPort() + "/metrics", Duration.ofMillis(200));
            return round(s, 0, null).compose(v -> s.stop());
        }).onComplete(ctx.succeeding(v -> ctx.verify(() -> {
            assertEquals(1, events().size());
            assertTrue(events().get(0).text().endsWith("failing: no answer within 200ms"), events().get(0).text());
            ctx.completeNow();
        })));
    }

    @Test
    void theWrongServerTypeIsAFailure(Vertx vertx, VertxTestContext ctx) {
        server(vertx).compose(srv -> {
            AppScraper s = scraper(vertx, "http://localhost:" + srv.actualPort() + "/metrics", Duration.ofSeconds(3));
            return round(s, 200, fixture("tgi-1.txt")).compose(v -> s.stop());
        }).onComplete(ctx.succeeding(v -> ctx.verify(() -> {
            assertEquals(1, events().size());
            assertTrue(events().get(0).text().endsWith("failing: the answer has no vllm metrics; is 'server' right?"),
                    events().get(0).text());
            assertEquals(List.of(), apps());
            ctx.completeNow();
        })));
    }

    @Test
    void malformedLinesAreSkippedAndReportedOnceWhileTheRestIsSent(Vertx vertx, VertxTestContext ctx) {
        String broken = fixture("vllm-1.txt").replace("vllm:num_requests_waiting{", "vllm:num_requests_waiting{{");
        server(vertx).compose(srv -> {
            AppScraper s = scraper(vertx, "http://localhost:" + srv.actualPort() + "/metrics", Duration.ofSeconds(3));
            return round(s, 200, broken).compose(v -> round(s, 200, broken)).compose(v -> s.stop());
        }).onComplete(ctx.succeeding(v -> ctx.verify(() -> {
            assertEquals(2, apps().size());
            assertFalse(apps().get(0).values().has(Metric.QUEUE_LENGTH));
            assertEquals(37, apps().get(0).values().get(Metric.BATCH_SIZE));
            assertEquals(1, events().size());
            assertTrue(events().get(0).text().endsWith("skipped 1 malformed line, first at 17:27: expected a label "
                    + "name, got '{'"), events().get(0).text());
            ctx.completeNow();
        })));
    }

    @Test
    void startScrapesAtOnceAndStopEndsIt(Vertx vertx, VertxTestContext ctx) {
        body.set(fixture("sglang-1.txt"));
        server(vertx).compose(srv -> {
            ScrapeConfig config = new ScrapeConfig(Duration.ofMinutes(10), Duration.ofSeconds(3), List.of(
                    new ScrapeTarget("svc-sgl", null, InferenceServer.SGLANG,
                            "http://localhost:" + srv.actualPort() + "/metrics", null)));
            AppScraper s = new AppScraper(vertx, config, clock::get, frames::add);
            return s.start().compose(v -> Await.until(vertx, "the first frame", () -> !frames.isEmpty()))
                    .compose(v -> s.stop());
        }).onComplete(ctx.succeeding(v -> ctx.verify(() -> {
            App app = assertInstanceOf(App.class, frames.get(0));
            assertEquals("sglang", app.source());
            assertEquals(162, app.values().get(Metric.BATCH_SIZE));
            ctx.completeNow();
        })));
    }
}
