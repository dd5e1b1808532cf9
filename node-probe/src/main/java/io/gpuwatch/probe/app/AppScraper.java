package io.gpuwatch.probe.app;

import io.gpuwatch.probe.http.Fetched;
import io.gpuwatch.probe.http.HttpGet;
import io.gpuwatch.probe.net.Dialer;
import io.gpuwatch.probe.net.TlsTrust;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Scrapes each configured inference server every interval and sends one {@code app} frame per target and scrape.
 * A target that fails (no answer in time, an HTTP error, none of its server's metrics) is reported with one
 * {@code probe_degraded} event when it starts failing, not at every interval, and so is an exposition with skipped
 * lines. Scrapes run on daemon threads of their own with a blocking {@link HttpGet} (one per target, at most
 * {@value #MAX_THREADS}, so that a target that hangs until its timeout delays no other), never on the caller's.
 */
public final class AppScraper {
    private static final Logger LOG = Logger.getLogger(AppScraper.class.getName());
    /** Larger answers are cut off: a metrics page of an inference server is well under a megabyte. */
    static final int MAX_BODY_BYTES = 16 << 20;
    private static final int MAX_THREADS = 4;
    private static final Map<String, String> ACCEPT = Map.of("Accept", "text/plain;version=0.0.4;q=1,*/*;q=0.1");

    private final ScrapeConfig config;
    private final LongSupplier clockMs;
    private final Consumer<Frame> out;
    private final HttpGet http;
    private final List<Target> targets = new ArrayList<>();
    private final ScheduledThreadPoolExecutor threads;

    /** One target's state between scrapes; a scrape holds {@link #inFlight}, so one thread at a time. */
    private static final class Target {
        final TargetTracker tracker;
        final URI url;
        final AtomicBoolean inFlight = new AtomicBoolean();
        boolean failing;
        boolean badLines;

        Target(ScrapeTarget target) {
            this.tracker = new TargetTracker(target);
            this.url = URI.create(target.url());
        }
    }

    /**
     * @param clockMs epoch ms: the timestamp of frames, and the clock that rates are taken over
     * @param out     gets the {@code app} frames and {@code probe_degraded} events, one at a time, on a scrape thread
     */
    public AppScraper(ScrapeConfig config, LongSupplier clockMs, Consumer<Frame> out) {
        this.config = config;
        this.clockMs = clockMs;
        this.out = out;
        this.http = new HttpGet(new Dialer(TlsTrust.JVM), config.timeout().toMillis(), MAX_BODY_BYTES);
        for (ScrapeTarget t : config.targets()) {
            targets.add(new Target(t));
        }
        this.threads = new ScheduledThreadPoolExecutor(Math.max(1, Math.min(MAX_THREADS, targets.size())), r -> {
            Thread t = new Thread(r, "gpuwatch-scrape");
            t.setDaemon(true);
            return t;
        });
    }

    /** Scrapes every target now, then every interval, on the scraper's threads. */
    public void start() {
        long every = config.interval().toMillis();
        for (Target t : targets) {
            threads.scheduleAtFixedRate(() -> scrapeOrLog(t), 0, every, TimeUnit.MILLISECONDS);
        }
    }

    /** One round on the calling thread: scrapes every target once, skipping one whose scrape is under way. */
    public void scrapeAll() {
        targets.forEach(this::scrape);
    }

    /** Stops scraping, waiting up to the scrape timeout for a scrape under way, and closes the idle connections. */
    public void stop() {
        threads.shutdown();
        try {
            threads.awaitTermination(config.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        http.close();
    }

    /** A periodic scrape that threw would never run again: a bug is logged, and the target is scraped on. */
    private void scrapeOrLog(Target t) {
        try {
            scrape(t);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "app scrape of task '" + t.tracker.target().task() + "' failed", e);
        }
    }

    private void scrape(Target t) {
        if (!t.inFlight.compareAndSet(false, true)) {
            return;
        }
        try {
            Fetched<Exposition> answer = http.get(t.url, ACCEPT, AppScraper::parse);
            long now = clockMs.getAsLong();
            if (answer instanceof Fetched.Ok<Exposition> ok) {
                scraped(t, now, ok.value());
            } else if (answer instanceof Fetched.Failed<Exposition> failure) {
                failed(t, now, failure.why());
            }
        } finally {
            t.inFlight.set(false);
        }
    }

    private static Exposition parse(InputStream body) throws IOException {
        return ExpositionParser.parse(new String(body.readAllBytes(), StandardCharsets.UTF_8));
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
        emit(app);
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
        emit(new Event(0, now, null, "probe_degraded", null, text, null));
    }

    /** Frames of different targets' threads reach {@code out} one at a time, as they did from one event loop. */
    private synchronized void emit(Frame f) {
        out.accept(f);
    }
}
