package io.gpuwatch.gateway.digest;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.coverage.CoverageBook;
import io.gpuwatch.gateway.ledger.AlertLedger;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.notify.render.ChartImage;
import io.gpuwatch.notify.render.Report;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Sends each channel's digest when its schedule says, on the gateway's event loop: a Vert.x timer wakes it at the
 * next due time by the injected clock (at least once a minute, so a clock that jumps is noticed), the ledger and
 * the business samples are snapshot on the loop, and the content, text and chart are worked out on a worker.
 * A digest covers the time since that channel's previous one (the first: since the gateway started); one that
 * could not be delivered is folded into the next. Channels that show images get a PNG chart served at
 * {@code PUBLIC_URL/api/v1/digests/ID/chart.png} when a public URL is given, the text sparkline otherwise.
 */
public final class Digests {
    private static final Logger LOG = Logger.getLogger(Digests.class.getName());
    /** Slices of the period in the trend: one a quarter-hour for hourly digests, one an hour for daily ones. */
    static final int SLICES = 24;
    static final int CHART_WIDTH = 480;
    static final int CHART_HEIGHT = 120;
    private static final long MAX_SLEEP_MS = 60_000;
    private static final long SAMPLE_EVERY_MS = 60_000;

    /** Where a digest reads from: the ledger (swapped when a store opens), the fleet and which signals arrive from it. */
    public record Sources(Supplier<AlertLedger> ledger, FleetState fleet, CoverageBook coverage) {
        /** Sources without frames counted: no digest mentions coverage. */
        public Sources(Supplier<AlertLedger> ledger, FleetState fleet) {
            this(ledger, fleet, new CoverageBook(CoverageBook.DEFAULT_WINDOW_MS));
        }
    }

    /** One digest as sent: its channel, the report, and whether the channel took it. */
    public record Sent(DigestChannel channel, Report report, boolean delivered) {
    }

    private final List<Slot> slots = new ArrayList<>();
    private final InstantSource clock;
    private final String publicUrl;
    private final Pricing pricing;
    private final Charts charts = new Charts();
    private Vertx vertx;
    private Context context;
    private Sources sources;
    private BusinessMeter meter;
    private long timer = -1;
    private long sampler = -1;

    /** One channel's state: when its current period began, when it is next due, and whether one is on its way. */
    private static final class Slot {
        final DigestChannel channel;
        /** The signals that arrived per node at the previous digest (or the start), to tell a drop from a gap. */
        Map<String, BitSet> signals = Map.of();
        Instant from;
        Instant due;
        boolean sending;

        Slot(DigestChannel channel) {
            this.channel = channel;
        }
    }

    /**
     * Digests for {@code channels}; {@code publicUrl} is how chat services reach this gateway's HTTP API (null:
     * no charts), {@code pricing} prices card-hours for the cost per token ({@link Pricing#NONE}: no cost shown).
     */
    public Digests(List<DigestChannel> channels, InstantSource clock, String publicUrl, Pricing pricing) {
        for (DigestChannel c : channels) {
            slots.add(new Slot(c));
        }
        this.clock = Objects.requireNonNull(clock, "clock");
        this.publicUrl = publicUrl == null || publicUrl.isBlank() ? null : publicUrl.replaceAll("/+$", "");
        this.pricing = Objects.requireNonNull(pricing, "pricing");
    }

    /** The channels, in the order given. */
    public List<DigestChannel> channels() {
        return slots.stream().map(s -> s.channel).toList();
    }

    /**
     * Binds to the gateway's sources and starts every channel's first period now, without timers; the context it
     * is called on (the gateway's) is where every later call runs.
     */
    public void attach(Vertx vertx, Sources sources) {
        this.vertx = Objects.requireNonNull(vertx, "vertx");
        this.context = vertx.getOrCreateContext();
        this.sources = Objects.requireNonNull(sources, "sources");
        this.meter = new BusinessMeter(sources.fleet(), pricing);
        Instant now = clock.instant();
        for (Slot s : slots) {
            s.from = now;
            s.due = s.channel.schedule().next(now);
            s.signals = sources.coverage().signalsByNode(sources.fleet(), now.toEpochMilli());
        }
        meter.sample(now.toEpochMilli());
    }

    /** {@link #attach} and the timers: the schedule's and the business meter's. Call it on the gateway's context. */
    public void start(Vertx vertx, Sources sources) {
        attach(vertx, sources);
        if (!slots.isEmpty()) {
            sampler = vertx.setPeriodic(SAMPLE_EVERY_MS, id -> sample());
            arm();
        }
    }

    /** Cancels the timers; a digest on its way still completes. */
    public void stop() {
        if (vertx != null) {
            vertx.cancelTimer(timer);
            vertx.cancelTimer(sampler);
        }
        timer = -1;
        sampler = -1;
    }

    private void arm() {
        long now = clock.millis();
        long next = Long.MAX_VALUE;
        for (Slot s : slots) {
            next = Math.min(next, s.due.toEpochMilli());
        }
        long delay = Math.max(1, Math.min(MAX_SLEEP_MS, next - now));
        timer = vertx.setTimer(delay, id -> due().onComplete(ar -> {
            if (timer != -1) {
                arm();
            }
        }));
    }

    private void sample() {
        meter.sample(clock.millis());
    }

    /** Sends the digest of every channel that is due by the clock; completes with what went out. Any thread. */
    public Future<List<Sent>> tick() {
        return onContext(this::due);
    }

    private Future<List<Sent>> due() {
        Instant now = clock.instant();
        List<Future<Sent>> out = new ArrayList<>();
        for (Slot s : slots) {
            if (!s.sending && !now.isBefore(s.due)) {
                out.add(send(s, now));
            }
        }
        return joined(out);
    }

    /**
     * Sends {@code receiver}'s digests now, each covering its period so far (the demo's closing summary). Any
     * thread.
     */
    public Future<List<Sent>> sendNow(String receiver) {
        return onContext(() -> now(receiver));
    }

    private Future<List<Sent>> now(String receiver) {
        Instant now = clock.instant();
        List<Future<Sent>> out = new ArrayList<>();
        for (Slot s : slots) {
            if (s.channel.receiver().equals(receiver) && !s.sending) {
                out.add(send(s, now));
            }
        }
        return joined(out);
    }

    private Future<List<Sent>> onContext(Supplier<Future<List<Sent>>> work) {
        Promise<List<Sent>> done = Promise.promise();
        context.runOnContext(v -> work.get().onComplete(done));
        return done.future();
    }

    private static Future<List<Sent>> joined(List<Future<Sent>> sends) {
        return Future.all(sends).map(all -> {
            List<Sent> sent = new ArrayList<>();
            for (int i = 0; i < all.size(); i++) {
                sent.add(all.resultAt(i));
            }
            return sent;
        });
    }

    /** The chart of digest {@code id}, while it is kept. */
    public Optional<byte[]> chart(String id) {
        return charts.get(id);
    }

    private record Built(Report report, String chartId, byte[] png) {
    }

    private Future<Sent> send(Slot s, Instant to) {
        s.sending = true;
        meter.sample(to.toEpochMilli());
        AlertLedger ledger = sources.ledger().get();
        List<Alert> live = ledger.live();
        List<Alert> ended = ledger.history();
        Instant from = s.from;
        List<BusinessMeter.Sample> samples = meter.samples(from.toEpochMilli(), to.toEpochMilli());
        boolean chart = publicUrl != null && s.channel.target().showsImages();
        boolean priced = !pricing.equals(Pricing.NONE);
        Map<String, BitSet> signals = sources.coverage().signalsByNode(sources.fleet(), to.toEpochMilli());
        List<String> dropped = CoverageDrops.lines(s.signals, signals);
        Future<Built> built = vertx.executeBlocking(() -> {
            DigestContent content = DigestCollector.collect(live, ended, from, to, s.channel.schedule().zone(),
                    SLICES, BusinessMeter.figures(samples), BusinessMeter.ownerFigures(samples), priced);
            String id = chart ? UUID.randomUUID().toString() : null;
            byte[] png = chart ? ChartImage.png(content.firingSeries(), CHART_WIDTH, CHART_HEIGHT) : null;
            String url = chart ? publicUrl + "/api/v1/digests/" + id + "/chart.png" : null;
            return new Built(CoverageDrops.appendTo(DigestText.render(content, url, pricing.currency()), dropped),
                    id, png);
        });
        return built.compose(b -> {
            if (b.png() != null) {
                charts.put(b.chartId(), b.png());
            }
            return s.channel.target().post(b.report()).transform(ar -> {
                s.sending = false;
                s.due = s.channel.schedule().next(to);
                if (ar.succeeded()) {
                    s.from = to;
                    s.signals = signals;
                } else {
                    LOG.warning("digest for " + s.channel.receiver() + " (" + s.channel.schedule().describe()
                            + ") not delivered, so the next one covers this period too: " + ar.cause().getMessage());
                }
                return Future.succeededFuture(new Sent(s.channel, b.report(), ar.succeeded()));
            });
        }, e -> {
            s.sending = false;
            s.due = s.channel.schedule().next(to);
            LOG.warning("digest for " + s.channel.receiver() + " could not be made: " + e);
            return Future.failedFuture(e);
        });
    }
}
