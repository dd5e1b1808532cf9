package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.ingest.DecisionLatency;
import io.gpuwatch.gateway.ingest.IngestCounters;
import io.gpuwatch.gateway.reload.RuleReloader;
import io.vertx.ext.web.RoutingContext;

/** {@code /metrics}: the gateway's own figures in the Prometheus text format. */
final class MetricsRoute {
    private final ApiHost gateway;

    MetricsRoute(ApiHost gateway) {
        this.gateway = gateway;
    }

    void metrics(RoutingContext ctx) {
        IngestCounters c = gateway.probes().counters();
        StringBuilder b = new StringBuilder();
        counter(b, "gpuwatch_ingest_connections_total", "WebSocket connections accepted", c.connections.get());
        counter(b, "gpuwatch_ingest_refused_handshakes_total", "handshakes refused for a missing or unknown token", c.refusedHandshakes.get());
        counter(b, "gpuwatch_ingest_frames_total", "frames received", c.frames.get());
        counter(b, "gpuwatch_ingest_samples_total", "sample frames taken", c.samples.get());
        counter(b, "gpuwatch_ingest_card_readings_total", "card readings taken", c.cardReadings.get());
        counter(b, "gpuwatch_ingest_events_total", "event frames taken", c.events.get());
        counter(b, "gpuwatch_ingest_duplicates_total", "frames ignored as already taken", c.duplicates.get());
        counter(b, "gpuwatch_ingest_bad_frames_total", "malformed frames answered with an error", c.badFrames.get());
        counter(b, "gpuwatch_ingest_shed_samples_total", "samples shed: over a connection's rate, or with the gateway's backlog full", c.shedSamples.get());
        counter(b, "gpuwatch_ingest_shed_backlog_total", "of the shed samples, those shed with the gateway's backlog full", c.shedBacklog.get());
        gauge(b, "gpuwatch_ingest_queued_samples", "samples taken and waiting for evaluation", gateway.probes().queuedSamples());
        decisions(b, gateway.probes().sampleLatency(), gateway.probes().eventLatency());
        counter(b, "gpuwatch_rule_evaluations_total", "scope evaluations run", gateway.evaluator().evaluations());
        counter(b, "gpuwatch_notifications_sent_total", "notifications delivered to a receiver", gateway.dispatcher().sent());
        counter(b, "gpuwatch_notifications_failed_total", "notifications a receiver failed to deliver", gateway.dispatcher().failed());
        gauge(b, "gpuwatch_nodes_connected", "nodes with an open probe connection", gateway.probes().connectedNodes());
        gauge(b, "gpuwatch_cards", "cards known", gateway.fleet().cardCount());
        gauge(b, "gpuwatch_window_bytes", "bytes held by windows and event logs", gateway.fleet().retainedBytes());
        gauge(b, "gpuwatch_alerts_firing", "alerts firing now", gateway.ledger().live().size());
        gauge(b, "gpuwatch_rules_loaded", "rules running now", gateway.rules().rules().size());
        gauge(b, "gpuwatch_rules_disabled", "rules disabled now for overrunning their time budget, until their back-off ends",
                gateway.evaluator().engine().disabled().size());
        counter(b, "gpuwatch_rule_disablements_total", "times a rule was disabled for overrunning its time budget",
                gateway.evaluator().engine().disablements());
        counter(b, "gpuwatch_rule_overruns_total", "rule evaluations over the time budget, start-up grace included",
                gateway.evaluator().engine().overruns());
        counter(b, "gpuwatch_rule_overruns_paused_total", "of those, overruns forgiven as mostly a garbage-collection pause",
                gateway.evaluator().engine().pausedOverruns());
        counter(b, "gpuwatch_rule_reload_failures_total", "rule reloads refused for errors, the old rules kept",
                gateway.reloader().map(RuleReloader::failures).orElse(0L));
        ctx.response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8").end(b.toString());
    }

    /** The read-to-decided histogram, one series per frame type, in Prometheus's histogram form. */
    private static void decisions(StringBuilder b, DecisionLatency samples, DecisionLatency events) {
        String name = "gpuwatch_decision_seconds";
        b.append("# HELP ").append(name).append(" from reading a frame to the end of the evaluation of its rules "
                + "(for samples, the wait behind other samples included)\n");
        b.append("# TYPE ").append(name).append(" histogram\n");
        decisions(b, name, "sample", samples);
        decisions(b, name, "event", events);
    }

    private static void decisions(StringBuilder b, String name, String frame, DecisionLatency h) {
        String label = "{frame=\"" + frame + "\"";
        for (int i = 0; i < DecisionLatency.BOUNDS.length; i++) {
            b.append(name).append("_bucket").append(label).append(",le=\"").append(DecisionLatency.BOUNDS[i])
                    .append("\"} ").append(h.atMost(i)).append('\n');
        }
        long count = h.count();
        b.append(name).append("_bucket").append(label).append(",le=\"+Inf\"} ").append(count).append('\n');
        b.append(name).append("_sum").append(label).append("} ").append(h.sumSeconds()).append('\n');
        b.append(name).append("_count").append(label).append("} ").append(count).append('\n');
    }

    private static void counter(StringBuilder b, String name, String help, long value) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(" counter\n");
        b.append(name).append(' ').append(value).append('\n');
    }

    private static void gauge(StringBuilder b, String name, String help, long value) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(" gauge\n");
        b.append(name).append(' ').append(value).append('\n');
    }
}
