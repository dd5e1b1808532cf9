package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.build.BuildInfo;
import io.gpuwatch.gateway.exposition.Encoding;
import io.gpuwatch.gateway.exposition.GpuExposition;
import io.gpuwatch.gateway.exposition.ProcessFigures;
import io.gpuwatch.gateway.exposition.TextFormat;
import io.gpuwatch.gateway.ingest.DecisionLatency;
import io.gpuwatch.gateway.ingest.IngestCounters;
import io.gpuwatch.gateway.reload.RuleReloader;
import io.gpuwatch.gateway.state.CardSnapshot;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.Severity;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * {@code /metrics}: the gateway's own figures, its process and JVM; {@code /metrics/gpus}: every card's GPU
 * series under dcgm-exporter's names (docs/operations.md, Scraping). What the event loop owns is copied on it;
 * the text is written, and gzipped for a scraper that accepts it, on a worker thread, so a scrape of thousands of
 * cards holds the loop only for the copy.
 */
final class MetricsRoute {
    private static final Logger LOG = Logger.getLogger(MetricsRoute.class.getName());
    /** Alert states of {@code gpuwatch_alerts}, each live alert in the first that applies after pending. */
    private static final List<String> STATES = List.of("pending", "firing", "silenced", "acknowledged");

    private final ApiHost gateway;

    MetricsRoute(ApiHost gateway) {
        this.gateway = gateway;
    }

    /**
     * How long a card's latest reading stays exported: three sampling intervals, and no less than 30 s, the
     * default pack's node-silent bound, so one late sample does not make a series flicker.
     */
    long staleAfterMs() {
        return Math.max(30_000, 3 * gateway.probes().config().intervalMs());
    }

    void gpus(RoutingContext ctx) {
        List<CardSnapshot> cards = gateway.fleet().snapshot(gateway.clock().millis(), staleAfterMs());
        reply(ctx, GpuExposition.textBytes(cards.size()), text -> GpuExposition.write(cards, text));
    }

    void metrics(RoutingContext ctx) {
        StringBuilder b = new StringBuilder(16 * 1024);
        own(new TextFormat(b));
        List<String> receivers = gateway.receivers().stream().map(Receiver::name).toList();
        Future<Map<String, Long>> pending = gateway.store()
                .map(s -> s.run(store -> store.outbox().pendingByReceiver()))
                .orElseGet(() -> Future.succeededFuture(null));
        pending.onComplete(ar -> {
            if (ar.failed()) {
                LOG.warning("the outbox depth could not be read for /metrics: " + ar.cause().getMessage());
            }
            Map<String, Long> byReceiver = ar.succeeded() ? ar.result() : null;
            // the process's and JVM's figures add a few kilobytes to the gateway's own
            reply(ctx, b.length() + 8192, text -> {
                text.text(b);
                if (byReceiver != null && !receivers.isEmpty()) {
                    text.family("gpuwatch_outbox_pending", "gauge", "notifications in the outbox waiting to be sent");
                    for (String receiver : receivers) {
                        text.sample("gpuwatch_outbox_pending", TextFormat.labels("receiver", receiver),
                                byReceiver.getOrDefault(receiver, 0L));
                    }
                }
                ProcessFigures.write(text);
            });
        });
    }

    /** Writes the text on a worker and sends it, gzipped when the scraper accepts gzip. */
    private static void reply(RoutingContext ctx, long textBytesHint, Consumer<TextFormat> writer) {
        boolean gzip = Encoding.accepts(ctx.request().getHeader("Accept-Encoding"));
        ctx.vertx().executeBlocking(() -> Encoding.write(gzip, textBytesHint, writer), false).onComplete(ar -> {
            if (ar.failed()) {
                LOG.warning("a scrape of " + ctx.request().path() + " failed: " + ar.cause());
                Replies.text(ctx, 500, "the metrics could not be written: " + ar.cause().getMessage() + "\n");
                return;
            }
            ctx.response().putHeader("Content-Type", TextFormat.CONTENT_TYPE).putHeader("Vary", "Accept-Encoding");
            if (ar.result().gzip()) {
                ctx.response().putHeader("Content-Encoding", "gzip");
            }
            ctx.response().end(Buffer.buffer(ar.result().body()));
        });
    }

    /** The gateway's own figures, read on the event loop that owns them. */
    private void own(TextFormat text) {
        IngestCounters c = gateway.probes().counters();
        BuildInfo build = BuildInfo.current();
        text.family("gpuwatch_build_info", "gauge", "the gateway's version, git revision and Java version; always 1")
                .sample("gpuwatch_build_info", TextFormat.labels("version", build.version(), "revision",
                        build.revision(), "java_version", build.javaVersion()), 1);
        counter(text, "gpuwatch_ingest_connections_total", "WebSocket connections accepted", c.connections.get());
        counter(text, "gpuwatch_ingest_refused_handshakes_total", "handshakes refused for a missing or unknown token",
                c.refusedHandshakes.get());
        counter(text, "gpuwatch_ingest_frames_total", "frames received", c.frames.get());
        counter(text, "gpuwatch_ingest_samples_total", "sample frames taken", c.samples.get());
        counter(text, "gpuwatch_ingest_card_readings_total", "card readings taken", c.cardReadings.get());
        counter(text, "gpuwatch_ingest_events_total", "event frames taken", c.events.get());
        counter(text, "gpuwatch_ingest_duplicates_total", "frames ignored as already taken", c.duplicates.get());
        counter(text, "gpuwatch_ingest_bad_frames_total", "malformed frames answered with an error", c.badFrames.get());
        counter(text, "gpuwatch_ingest_shed_samples_total",
                "samples shed: over a connection's rate, or with the gateway's backlog full", c.shedSamples.get());
        counter(text, "gpuwatch_ingest_shed_backlog_total",
                "of the shed samples, those shed with the gateway's backlog full", c.shedBacklog.get());
        gauge(text, "gpuwatch_ingest_queued_samples", "samples taken and waiting for evaluation",
                gateway.probes().queuedSamples());
        decisions(text.family("gpuwatch_decision_seconds", "histogram", "from reading a frame to the end of the "
                        + "evaluation of its rules (for samples, the wait behind other samples included)"),
                gateway.probes().sampleLatency(), gateway.probes().eventLatency());
        counter(text, "gpuwatch_rule_evaluations_total", "scope evaluations run", gateway.evaluator().evaluations());
        counter(text, "gpuwatch_rule_instance_evaluations_total", "evaluations of one rule on one instance run",
                gateway.evaluator().engine().ran());
        counter(text, "gpuwatch_rule_instance_evaluations_slept_total",
                "evaluations of one rule on one instance left out: the rule slept, as nothing it reads had changed",
                gateway.evaluator().engine().slept());
        byReceiver(text, "gpuwatch_notifications_sent_total", "notifications delivered to a receiver",
                gateway.dispatcher().sentByReceiver());
        byReceiver(text, "gpuwatch_notifications_failed_total", "notifications a receiver failed to deliver",
                gateway.dispatcher().failedByReceiver());
        gauge(text, "gpuwatch_nodes_connected", "nodes with an open probe connection", gateway.probes().connectedNodes());
        gauge(text, "gpuwatch_cards", "cards known", gateway.fleet().cardCount());
        gauge(text, "gpuwatch_window_bytes", "bytes held by windows and event logs", gateway.fleet().retainedBytes());
        gauge(text, "gpuwatch_alerts_firing", "alerts firing now", gateway.ledger().live().size());
        alerts(text);
        gauge(text, "gpuwatch_rules_loaded", "rules running now", gateway.rules().rules().size());
        gauge(text, "gpuwatch_rules_disabled",
                "rules disabled now for overrunning their time budget, until their back-off ends",
                gateway.evaluator().engine().disabled().size());
        counter(text, "gpuwatch_rule_disablements_total", "times a rule was disabled for overrunning its time budget",
                gateway.evaluator().engine().disablements());
        counter(text, "gpuwatch_rule_overruns_total", "rule evaluations over the time budget, start-up grace included",
                gateway.evaluator().engine().overruns());
        counter(text, "gpuwatch_rule_overruns_paused_total",
                "of those, overruns forgiven as mostly a garbage-collection pause",
                gateway.evaluator().engine().pausedOverruns());
        counter(text, "gpuwatch_rule_reload_failures_total", "rule reloads refused for errors, the old rules kept",
                gateway.reloader().map(RuleReloader::failures).orElse(0L));
    }

    /**
     * {@code gpuwatch_alerts{severity,state}}: pending instances from the rule engine, and each live alert as
     * silenced (a silence matches it now), else acknowledged, else firing. Every severity and state is written,
     * 0 included, so an alert on a count does not see the series vanish.
     */
    private void alerts(TextFormat text) {
        Map<String, long[]> counts = new LinkedHashMap<>();
        for (Severity s : Severity.values()) {
            counts.put(s.key(), new long[STATES.size()]);
        }
        Map<String, Integer> pending = gateway.evaluator().engine().pendingByRule();
        for (Rule r : gateway.rules().rules()) {
            int n = pending.getOrDefault(r.name(), 0);
            counts.computeIfAbsent(r.severity().key(), k -> new long[STATES.size()])[0] += n;
        }
        Instant now = gateway.clock().instant();
        for (Alert a : gateway.ledger().live()) {
            int state = !gateway.dispatcher().silences().silenced(a.labels(), now).isEmpty() ? 2
                    : gateway.acknowledgements().of(a.fingerprint(), a.activeSince()).isPresent() ? 3 : 1;
            counts.computeIfAbsent(a.severity(), k -> new long[STATES.size()])[state]++;
        }
        text.family("gpuwatch_alerts", "gauge", "alerts by severity and state: pending (the condition holds, not "
                + "yet for its 'for'), firing, silenced, acknowledged");
        counts.forEach((severity, n) -> {
            for (int i = 0; i < STATES.size(); i++) {
                text.sample("gpuwatch_alerts", TextFormat.labels("severity", severity, "state", STATES.get(i)), n[i]);
            }
        });
    }

    private void byReceiver(TextFormat text, String name, String help, Map<String, Long> counts) {
        if (counts.isEmpty()) {
            return;
        }
        text.family(name, "counter", help);
        counts.forEach((receiver, n) -> text.sample(name, TextFormat.labels("receiver", receiver), n));
    }

    /** The read-to-decided histogram, one series per frame type. */
    private static void decisions(TextFormat text, DecisionLatency samples, DecisionLatency events) {
        decisions(text, "sample", samples);
        decisions(text, "event", events);
    }

    private static void decisions(TextFormat text, String frame, DecisionLatency h) {
        String name = "gpuwatch_decision_seconds";
        for (int i = 0; i < DecisionLatency.BOUNDS.length; i++) {
            text.sample(name + "_bucket", TextFormat.labels("frame", frame, "le",
                    Double.toString(DecisionLatency.BOUNDS[i])), h.atMost(i));
        }
        long count = h.count();
        text.sample(name + "_bucket", TextFormat.labels("frame", frame, "le", "+Inf"), count);
        text.sample(name + "_sum", TextFormat.labels("frame", frame), h.sumSeconds());
        text.sample(name + "_count", TextFormat.labels("frame", frame), count);
    }

    private static void counter(TextFormat text, String name, String help, long value) {
        text.family(name, "counter", help).sample(name, value);
    }

    private static void gauge(TextFormat text, String name, String help, long value) {
        text.family(name, "gauge", help).sample(name, value);
    }
}
