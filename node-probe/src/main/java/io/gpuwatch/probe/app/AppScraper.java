package io.gpuwatch.probe.app;

import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Scrapes each configured inference server every interval and sends one {@code app} frame per target and scrape.
 * A target that fails (no answer in time, an HTTP error, none of its server's metrics) is reported with one
 * {@code probe_degraded} event when it starts failing, not at every interval, and so is an exposition with skipped
 * lines. All state lives on one Vert.x context.
 */
public final class AppScraper {
    private static final Logger LOG = Logger.getLogger(AppScraper.class.getName());
    /** Larger answers are cut off: a metrics page of an inference server is well under a megabyte. */
    static final int MAX_BODY_BYTES = 16 << 20;
    private static final String ACCEPT = "text/plain;version=0.0.4;q=1,*/*;q=0.1";

    private final Vertx vertx;
    private final Context context;
    private final ScrapeConfig config;
    private final LongSupplier clockMs;
    private final Consumer<Frame> out;
    private final HttpClientAgent client;
    private final List<Target> targets = new ArrayList<>();
    private long timer = -1;

    /** One target's state between scrapes. */
    private static final class Target {
        final TargetTracker tracker;
        boolean inFlight;
        boolean failing;
        boolean badLines;

        Target(ScrapeTarget target) {
            this.tracker = new TargetTracker(target);
        }
    }

    /**
     * @param clockMs epoch ms: the timestamp of frames, and the clock that rates are taken over
     * @param out     gets the {@code app} frames and {@code probe_degraded} events, on this scraper's context
     */
    public AppScraper(Vertx vertx, ScrapeConfig config, LongSupplier clockMs, Consumer<Frame> out) {
        this.vertx = vertx;
        this.context = vertx.getOrCreateContext();
        this.config = config;
        this.clockMs = clockMs;
        this.out = out;
        this.client = vertx.createHttpClient(new HttpClientOptions().setDecompressionSupported(true)
                .setKeepAlive(true));
        for (ScrapeTarget t : config.targets()) {
            targets.add(new Target(t));
        }
    }

    /** Scrapes every target now, then every interval. */
    public Future<Void> start() {
        Promise<Void> started = Promise.promise();
        context.runOnContext(v -> {
            if (timer < 0) {
                timer = vertx.setPeriodic(config.interval().toMillis(), id -> round());
                round();
            }
            started.complete();
        });
        return started.future();
    }

    /** One round: scrapes every target once; completes when all have answered or failed, and never fails. */
    public Future<Void> scrapeAll() {
        Promise<Void> done = Promise.promise();
        context.runOnContext(v -> round().onComplete(ar -> done.complete()));
        return done.future();
    }

    /** Stops the timer and closes the HTTP client. */
    public Future<Void> stop() {
        Promise<Void> stopped = Promise.promise();
        context.runOnContext(v -> {
            if (timer >= 0) {
                vertx.cancelTimer(timer);
                timer = -1;
            }
            client.close().onComplete(ar -> stopped.complete());
        });
        return stopped.future();
    }

    private Future<?> round() {
        List<Future<Void>> all = new ArrayList<>();
        for (Target t : targets) {
            all.add(scrape(t));
        }
        return Future.join(all);
    }

    private Future<Void> scrape(Target t) {
        if (t.inFlight) {
            return Future.succeededFuture();
        }
        t.inFlight = true;
        ScrapeTarget target = t.tracker.target();
        long timeoutMs = config.timeout().toMillis();
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(target.url())
                .putHeader(HttpHeaders.ACCEPT, ACCEPT).setConnectTimeout(timeoutMs).setIdleTimeout(timeoutMs);
        return client.request(options)
                .compose(req -> req.send().compose(AppScraper::body))
                .timeout(timeoutMs, TimeUnit.MILLISECONDS)
                .transform(ar -> {
                    t.inFlight = false;
                    long now = clockMs.getAsLong();
                    if (ar.failed()) {
                        failed(t, now, describe(ar.cause(), timeoutMs));
                    } else {
                        scraped(t, now, ExpositionParser.parse(ar.result().toString(StandardCharsets.UTF_8)));
                    }
                    return Future.succeededFuture();
                });
    }

    private void scraped(Target t, long now, Exposition e) {
        ScrapeTarget target = t.tracker.target();
        App app = t.tracker.observe(e, now);
        if (app == null) {
            failed(t, now, "the answer has no " + target.server().source() + " metrics"
                    + (target.model() == null ? "" : " for model '" + target.model() + "'")
                    + "; is 'server' right?");
            return;
        }
        if (t.failing) {
            t.failing = false;
            LOG.info(() -> "app scrape of task '" + target.task() + "' (" + target.url() + ") works again");
        }
        out.accept(app);
        if (e.errors().isEmpty()) {
            t.badLines = false;
        } else if (!t.badLines) {
            t.badLines = true;
            degraded(now, "app scrape of task '" + target.task() + "' (" + target.url() + "): skipped "
                    + e.errors().size() + " malformed line" + (e.errors().size() == 1 ? "" : "s") + ", first at "
                    + e.errors().get(0));
        }
    }

    private void failed(Target t, long now, String why) {
        if (t.failing) {
            return;
        }
        t.failing = true;
        ScrapeTarget target = t.tracker.target();
        degraded(now, "app scrape of task '" + target.task() + "' (" + target.server().source() + " at "
                + target.url() + ") failing: " + why);
    }

    private void degraded(long now, String text) {
        LOG.warning(text);
        out.accept(new Event(0, now, null, "probe_degraded", null, text, null));
    }

    private static Future<Buffer> body(HttpClientResponse resp) {
        if (resp.statusCode() != 200) {
            return resp.body().transform(ar -> Future.failedFuture("answered HTTP " + resp.statusCode()));
        }
        Promise<Buffer> p = Promise.promise();
        Buffer acc = Buffer.buffer();
        resp.handler(b -> {
            if (acc.length() + b.length() > MAX_BODY_BYTES) {
                if (p.tryFail("the answer is larger than " + (MAX_BODY_BYTES >> 20) + " MiB")) {
                    resp.request().reset();
                }
            } else {
                acc.appendBuffer(b);
            }
        });
        resp.exceptionHandler(p::tryFail);
        resp.endHandler(v -> p.tryComplete(acc));
        return p.future();
    }

    private static String describe(Throwable e, long timeoutMs) {
        if (e instanceof TimeoutException) {
            return "no answer within " + timeoutMs + "ms";
        }
        if (e instanceof ConnectException) {
            return "cannot connect: " + e.getMessage();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
