package io.gpuwatch.probe.app;

import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Metric;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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

/** The scraper on its blocking HTTP client against a Vert.x server that answers recorded expositions. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class AppScraperTest {
    private static final Path SCRAPES = Path.of("src", "test", "resources", "scrape");
    private static final long T0 = 1_764_700_000_000L;
    private final AtomicLong clock = new AtomicLong(T0);
    private final List<Frame> frames = new CopyOnWriteArrayList<>();
    /** What the test server answers next: a fixture's text, or an HTTP status (0: no answer at all). */
    private final AtomicReference<String> body = new AtomicReference<>();
    private final AtomicInteger status = new AtomicInteger(200);
    private Vertx vertx;

    @BeforeEach
    void vertx() {
        vertx = Vertx.vertx();
    }

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static String fixture(String name) {
        try {
            return Files.readString(SCRAPES.resolve(name));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private int server() throws Exception {
        HttpServer srv = vertx.createHttpServer().requestHandler(req -> {
            if (status.get() == 0) {
                return; // never answers
            }
            req.response().setStatusCode(status.get()).putHeader("Content-Type", "text/plain; version=0.0.4")
                    .end(body.get());
        }).listen(0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        return srv.actualPort();
    }

    /** A port that was just free: nothing listens there. */
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private AppScraper scraper(String url, Duration timeout) {
        ScrapeConfig config = new ScrapeConfig(Duration.ofSeconds(10), timeout,
                List.of(new ScrapeTarget("svc-chat-70b", "chat", InferenceServer.VLLM, url, null)));
        return new AppScraper(config, clock::get, frames::add);
    }

    private List<Event> events() {
        return frames.stream().filter(f -> f instanceof Event).map(f -> (Event) f).toList();
    }

    private List<App> apps() {
        return frames.stream().filter(f -> f instanceof App).map(f -> (App) f).toList();
    }

    /** Sets what the server answers, then runs one round with the clock moved on by 10 s. */
    private void round(AppScraper s, int code, String text) {
        status.set(code);
        body.set(text);
        clock.addAndGet(10_000);
        s.scrapeAll();
    }

    @Test
    void twoScrapesGiveTwoFramesWithRatesOnTheSecond() throws Exception {
        AppScraper s = scraper("http://localhost:" + server() + "/metrics", Duration.ofSeconds(3));
        round(s, 200, fixture("vllm-1.txt"));
        round(s, 200, fixture("vllm-2.txt"));
        s.stop();
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
    }

    @Test
    void aTargetThatIsDownIsReportedOncePerEpisode() throws Exception {
        int port = closedPort();
        AppScraper s = scraper("http://localhost:" + port + "/metrics", Duration.ofSeconds(3));
        round(s, 200, "");
        round(s, 200, "");
        round(s, 200, "");
        s.stop();
        List<Event> events = events();
        assertEquals(1, events.size(), () -> "expected one report, got " + events);
        Event e = events.get(0);
        assertEquals("probe_degraded", e.kind());
        assertEquals(T0 + 10_000, e.ts());
        assertTrue(e.text().startsWith("app scrape of task 'svc-chat-70b' (vllm at http://localhost:" + port
                + "/metrics) failing: cannot connect"), e.text());
        assertEquals(List.of(), apps());
    }

    @Test
    void aNewEpisodeAfterARecoveryIsReportedAgain() throws Exception {
        AppScraper s = scraper("http://localhost:" + server() + "/metrics", Duration.ofSeconds(3));
        round(s, 503, "overloaded");
        round(s, 503, "overloaded");
        round(s, 200, fixture("vllm-1.txt"));
        round(s, 500, "boom");
        s.stop();
        List<String> texts = events().stream().map(Event::text).toList();
        assertEquals(2, texts.size(), () -> "got " + texts);
        assertTrue(texts.get(0).endsWith("failing: answered HTTP 503"), texts.get(0));
        assertTrue(texts.get(1).endsWith("failing: answered HTTP 500"), texts.get(1));
        assertEquals(1, apps().size());
    }

    @Test
    void aTargetThatDoesNotAnswerInTimeFails() throws Exception {
        AppScraper s = scraper("http://localhost:" + server() + "/metrics", Duration.ofMillis(200));
        round(s, 0, null);
        s.stop();
        assertEquals(1, events().size());
        assertTrue(events().get(0).text().endsWith("failing: no answer within 200ms"), events().get(0).text());
    }

    @Test
    void theWrongServerTypeIsAFailure() throws Exception {
        AppScraper s = scraper("http://localhost:" + server() + "/metrics", Duration.ofSeconds(3));
        round(s, 200, fixture("tgi-1.txt"));
        s.stop();
        assertEquals(1, events().size());
        assertTrue(events().get(0).text().endsWith("failing: the answer has no vllm metrics; is 'server' right?"),
                events().get(0).text());
        assertEquals(List.of(), apps());
    }

    @Test
    void malformedLinesAreSkippedAndReportedOnceWhileTheRestIsSent() throws Exception {
        String broken = fixture("vllm-1.txt").replace("vllm:num_requests_waiting{", "vllm:num_requests_waiting{{");
        AppScraper s = scraper("http://localhost:" + server() + "/metrics", Duration.ofSeconds(3));
        round(s, 200, broken);
        round(s, 200, broken);
        s.stop();
        assertEquals(2, apps().size());
        assertFalse(apps().get(0).values().has(Metric.QUEUE_LENGTH));
        assertEquals(37, apps().get(0).values().get(Metric.BATCH_SIZE));
        assertEquals(1, events().size());
        assertTrue(events().get(0).text().endsWith("skipped 1 malformed line, first at 17:27: expected a label "
                + "name, got '{'"), events().get(0).text());
    }

    @Test
    void startScrapesAtOnceOnItsOwnThreadAndStopEndsIt() throws Exception {
        body.set(fixture("sglang-1.txt"));
        ScrapeConfig config = new ScrapeConfig(Duration.ofMinutes(10), Duration.ofSeconds(3), List.of(
                new ScrapeTarget("svc-sgl", null, InferenceServer.SGLANG, "http://localhost:" + server() + "/metrics",
                        null)));
        AppScraper s = new AppScraper(config, clock::get, frames::add);
        s.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (frames.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        s.stop();
        App app = assertInstanceOf(App.class, frames.get(0));
        assertEquals("sglang", app.source());
        assertEquals(162, app.values().get(Metric.BATCH_SIZE));
    }

    @Test
    void aHungTargetDelaysNoOther() throws Exception {
        status.set(0);
        int hung = server();
        AtomicReference<String> other = new AtomicReference<>(fixture("sglang-1.txt"));
        HttpServer good = vertx.createHttpServer().requestHandler(req -> req.response().end(other.get())).listen(0)
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        ScrapeConfig config = new ScrapeConfig(Duration.ofMinutes(10), Duration.ofSeconds(5), List.of(
                new ScrapeTarget("svc-hung", null, InferenceServer.VLLM, "http://localhost:" + hung + "/metrics", null),
                new ScrapeTarget("svc-sgl", null, InferenceServer.SGLANG,
                        "http://localhost:" + good.actualPort() + "/metrics", null)));
        AppScraper s = new AppScraper(config, clock::get, frames::add);
        long started = System.nanoTime();
        s.start();
        while (apps().isEmpty() && System.nanoTime() - started < TimeUnit.SECONDS.toNanos(10)) {
            Thread.sleep(5);
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        s.stop();
        assertEquals("svc-sgl", apps().get(0).task());
        assertTrue(tookMs < 4_000, "the good target's frame came after " + tookMs + " ms");
    }
}
