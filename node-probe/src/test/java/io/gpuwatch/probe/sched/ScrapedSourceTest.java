package io.gpuwatch.probe.sched;

import io.gpuwatch.probe.sched.kueue.KueueReader;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.Sched;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A metrics page served over HTTP: a malformed line is reported once and the rest used; an HTTP error is a failure. */
class ScrapedSourceTest {
    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void malformedLinesAreSkippedAndReportedOnce() throws Exception {
        AtomicReference<String> page = new AtomicReference<>(Fixtures.read("kueue/metrics-1.txt")
                .replace("kueue_pending_workloads{cluster_queue=\"team-search-cq\",status=\"active\"} 1",
                        "kueue_pending_workloads{cluster_queue=\"team-search-cq\",status=active} 1"));
        AtomicReference<Integer> status = new AtomicReference<>(200);
        HttpServer server = vertx.createHttpServer().requestHandler(req -> req.response()
                        .setStatusCode(status.get()).putHeader("content-type", "text/plain; version=0.0.4")
                        .end(page.get()))
                .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        String url = "http://127.0.0.1:" + server.actualPort() + "/metrics";
        List<Frame> out = new CopyOnWriteArrayList<>();
        SchedProducer producer = new SchedProducer(vertx, new ScrapedSource("kueue", new MetricsPage(vertx, url),
                new KueueReader()), Duration.ofMinutes(1), () -> 1764700000_000L, out::add);

        producer.readOnce().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        producer.readOnce().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(5, out.size(), out.toString());
        Sched search = (Sched) out.get(1);
        assertEquals(0, search.values().get(Metric.PENDING), "the broken line is left out, the inadmissible 0 kept");
        Event bad = (Event) out.get(2);
        assertEquals("kueue (" + url + "): skipped 1 malformed line, first at 81:63: expected a quoted label value, "
                + "got 'a'", bad.text());

        status.set(503);
        producer.readOnce().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        Event failing = (Event) out.get(out.size() - 1);
        assertEquals("kueue (" + url + ") failing: " + url + ": answered HTTP 503", failing.text());
    }
}
