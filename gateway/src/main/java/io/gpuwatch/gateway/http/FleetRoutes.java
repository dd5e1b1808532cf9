package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.CardTrail;
import io.gpuwatch.gateway.state.NodeState;
import io.gpuwatch.gateway.state.TaskState;
import io.gpuwatch.gateway.window.EventLog;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.rules.Layer;
import io.gpuwatch.rules.Severity;
import io.gpuwatch.rules.metric.DerivedMetric;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The fleet as the console draws it (docs/api.md, Fleet): every card's value of one metric in a compact
 * snapshot, one card with its last hour, and the tasks with their application metrics. Handlers run on the
 * gateway's event loop, which owns the fleet's state; nothing here changes it.
 */
final class FleetRoutes {
    /** NVML clock-event reasons that slow a card down: software and hardware power caps, slowdowns, thermal. */
    static final long THROTTLE_BITS = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;
    private static final long HOUR_MS = 3600_000L;

    /** A metric the heatmap can colour by: its layer, unit, and how a card's value is read. */
    record Shade(String key, Layer layer, String label, String unit, BiFunction<CardState, TaskState, Double> value) {
    }

    static final List<Shade> SHADES = List.of(
            new Shade("gpuUtil", Layer.DEVICE, "utilisation", "%", (c, t) -> c.latest(Metric.GPU_UTIL)),
            new Shade("smActiveOfBusy", Layer.DEVICE, "SM activity while busy", "ratio",
                    (c, t) -> DerivedMetric.smActiveOfBusy(c.latest(Metric.GPU_UTIL),
                            c.latest(Metric.SM_ACTIVE))),
            new Shade("tempC", Layer.DEVICE, "temperature", "°C", (c, t) -> c.latest(Metric.TEMP_C)),
            new Shade("powerW", Layer.DEVICE, "power", "W", (c, t) -> c.latest(Metric.POWER_W)),
            new Shade("memUsed", Layer.DEVICE, "memory used", "%", (c, t) -> memUsed(c)),
            new Shade("throttling", Layer.DEVICE, "throttling", "0/1", (c, t) -> throttling(c)),
            new Shade("xids1h", Layer.DEVICE, "XIDs in the last hour", "XIDs",
                    (c, t) -> (double) c.countEvents("xid", -1, HOUR_MS)),
            new Shade("allocated", Layer.SCHEDULING, "allocated", "0/1", (c, t) -> c.allocated() ? 1.0 : 0.0),
            new Shade("idleMinutes", Layer.SCHEDULING, "idle while allocated", "min", (c, t) -> c.idleSeconds() / 60),
            new Shade("tokensPerSec", Layer.APPLICATION, "task tokens/s", "tokens/s",
                    (c, t) -> t == null ? Double.NaN : t.appLatest(Metric.TOKENS_PER_SEC)),
            new Shade("ttftP99Ms", Layer.APPLICATION, "task TTFT P99", "ms",
                    (c, t) -> t == null ? Double.NaN : t.appLatest(Metric.TTFT_P99_MS)),
            new Shade("costPerHour", Layer.BUSINESS, "price per hour", "per hour", (c, t) -> c.cardHourPrice()));

    private final ApiHost gateway;

    FleetRoutes(ApiHost gateway) {
        this.gateway = gateway;
    }

    void mount(Router router, AccessGuard guard) {
        router.get("/api/v1/fleet").handler(guard.require(Role.VIEWER, false)).handler(this::fleet);
        router.get("/api/v1/fleet/:node/:uuid").handler(guard.require(Role.VIEWER, false)).handler(this::card);
        router.get("/api/v1/tasks").handler(guard.require(Role.VIEWER, false)).handler(this::tasks);
    }

    /**
     * Every card of every node (or of {@code node}) with its value of {@code metric} ({@code gpuUtil} unless
     * given), its task, owner and business as indexes into {@code strings}, and the most urgent live alert on it;
     * compact, about 83 bytes a card.
     */
    private void fleet(RoutingContext ctx) {
        String key = ctx.queryParam("metric").isEmpty() ? "gpuUtil" : ctx.queryParam("metric").get(0);
        Optional<Shade> shade = SHADES.stream().filter(s -> s.key().equals(key)).findFirst();
        if (shade.isEmpty()) {
            Replies.badRequest(ctx, "metric", "unknown metric `" + key + "`; expected one of "
                    + SHADES.stream().map(Shade::key).collect(Collectors.joining(", ")));
            return;
        }
        String only = ctx.queryParam("node").isEmpty() ? null : ctx.queryParam("node").get(0);
        Map<String, TaskState> tasks = tasksByName();
        Map<String, String> urgent = urgentByCard();
        long now = gateway.clock().millis();
        // read on the event loop, which owns the fleet; turned into JSON on a worker, off the loop
        List<NodeRow> rows = new ArrayList<>();
        for (NodeState node : gateway.fleet().nodes()) {
            if (only != null && !only.equals(node.name())) {
                continue;
            }
            List<CardRow> cards = new ArrayList<>(node.cards().size());
            for (CardState c : node.cards()) {
                ProcessInfo p = c.attribution();
                TaskState t = p == null || p.task() == null ? null : tasks.get(p.task());
                cards.add(new CardRow(c.info() == null ? -1 : c.info().index(), c.uuid(),
                        shade.get().value().apply(c, t), p, urgent.get(node.name() + "/" + c.uuid())));
            }
            rows.add(new NodeRow(node.name(), node.connected(), node.connected() ? null : now - node.lastFrameAt(),
                    new TreeMap<>(node.context()), urgent.get(node.name()), cards));
        }
        String at = gateway.clock().instant().toString();
        ctx.vertx().executeBlocking(() -> snapshot(at, key, rows), false)
                .onSuccess(json -> ctx.response().putHeader("Content-Type", "application/json").end(json))
                .onFailure(e -> Replies.json(ctx, 500, new JsonObject().put("error", "the fleet could not be "
                        + "written: " + e.getMessage())));
    }

    /** A card as the heatmap needs it, copied on the event loop. */
    private record CardRow(int index, String uuid, double value, ProcessInfo attribution, String alert) {
    }

    /** A node and its cards, copied on the event loop. */
    private record NodeRow(String name, boolean connected, Long silentForMs, Map<String, String> labels, String alert,
                           List<CardRow> cards) {
    }

    /** The compact JSON of the fleet: one line, task, owner and business names once each in {@code strings}. */
    private static String snapshot(String at, String key, List<NodeRow> rows) {
        Map<String, Integer> strings = new HashMap<>();
        JsonArray table = new JsonArray();
        JsonArray nodes = new JsonArray();
        for (NodeRow n : rows) {
            JsonArray cards = new JsonArray();
            for (CardRow c : n.cards()) {
                ProcessInfo p = c.attribution();
                cards.add(new JsonArray().add(c.index()).add(c.uuid())
                        .add(Double.isFinite(c.value()) ? round(c.value()) : null)
                        .add(index(strings, table, p == null ? null : p.task()))
                        .add(index(strings, table, p == null ? null : p.owner()))
                        .add(index(strings, table, p == null ? null : p.business()))
                        .add(c.alert()));
            }
            nodes.add(new JsonObject().put("name", n.name()).put("connected", n.connected())
                    .put("silentForMs", n.silentForMs())
                    .put("labels", new JsonObject(new TreeMap<String, Object>(n.labels())))
                    .put("alert", n.alert()).put("cards", cards));
        }
        JsonArray metrics = new JsonArray();
        SHADES.forEach(s -> metrics.add(new JsonObject().put("key", s.key()).put("layer", s.layer().key())
                .put("label", s.label()).put("unit", s.unit())));
        // compact, not pretty: 10,000 cards are one line each otherwise
        return new JsonObject().put("at", at).put("metric", key).put("metrics", metrics)
                .put("columns", new JsonArray(List.of("index", "uuid", "value", "task", "owner", "business",
                        "alert")))
                .put("strings", table).put("nodes", nodes).encode();
    }

    /** One card: facts, attribution, latest values, its hour in {@link CardTrail#SLOT_MS} slots, events, alerts. */
    private void card(RoutingContext ctx) {
        NodeState node = gateway.fleet().node(ctx.pathParam("node"));
        CardState c = node == null ? null : node.card(ctx.pathParam("uuid"));
        if (c == null) {
            Replies.notFound(ctx, "no card " + ctx.pathParam("uuid") + " on node " + ctx.pathParam("node"));
            return;
        }
        long now = gateway.clock().millis();
        ProcessInfo p = c.attribution();
        TaskState t = p == null || p.task() == null ? null : tasksByName().get(p.task());
        JsonObject latest = new JsonObject();
        for (Shade s : SHADES) {
            double v = s.value().apply(c, t);
            latest.put(s.key(), Double.isFinite(v) ? round(v) : null);
        }
        JsonObject series = new JsonObject();
        for (int m = 0; m < CardTrail.METRICS.size(); m++) {
            JsonArray values = new JsonArray();
            for (double v : c.trail().series(m, now)) {
                values.add(Double.isFinite(v) ? round(v) : null);
            }
            series.put(CardTrail.METRICS.get(m).field(), values);
        }
        JsonArray events = new JsonArray();
        for (EventLog.Entry e : c.recentEvents()) {
            if (now - e.ts() <= HOUR_MS) {
                events.add(new JsonObject().put("at", AlertView.time(e.ts())).put("kind", e.kind())
                        .put("code", e.code()));
            }
        }
        JsonArray alerts = new JsonArray();
        Stream.concat(gateway.ledger().live().stream(), gateway.ledger().history().stream())
                .filter(a -> onCard(a, node.name(), c.uuid()))
                .filter(a -> a.resolvedAt() == 0 || now - a.resolvedAt() <= HOUR_MS)
                .forEach(a -> alerts.add(new JsonObject().put("fingerprint", a.fingerprint()).put("rule", a.rule())
                        .put("severity", a.severity()).put("state", a.state().name().toLowerCase(Locale.ROOT))
                        .put("activeSince", AlertView.time(a.activeSince()))
                        .put("firedAt", AlertView.time(a.firedAt()))
                        .put("resolvedAt", AlertView.time(a.resolvedAt()))));
        Replies.json(ctx, 200, new JsonObject().put("node", node.name()).put("uuid", c.uuid())
                .put("index", c.info() == null ? null : c.info().index())
                .put("name", c.info() == null ? null : c.info().name())
                .put("connected", node.connected())
                .put("labels", new JsonObject(new TreeMap<String, Object>(node.context())))
                .put("task", p == null ? null : p.task()).put("owner", p == null ? null : p.owner())
                .put("business", p == null ? null : p.business())
                .put("latest", latest)
                .put("series", new JsonObject().put("from", AlertView.time(CardTrail.from(now)))
                        .put("stepMs", CardTrail.SLOT_MS).put("metrics", series))
                .put("events", events).put("alerts", alerts));
    }

    /**
     * Each task: its cards, owner, business, queue, latest application metrics, the share of its cards idle now,
     * and what a million tokens cost at its cards' prices (null without prices or tokens).
     */
    private void tasks(RoutingContext ctx) {
        Page page = Page.of(ctx);
        if (page == null) {
            return;
        }
        List<TaskState> all = gateway.fleet().tasks().stream()
                .sorted((a, b) -> a.name().compareTo(b.name())).toList();
        JsonArray out = new JsonArray();
        for (TaskState t : page.of(all)) {
            JsonArray cards = new JsonArray();
            int idle = 0;
            double pricePerHour = 0;
            for (CardState c : t.cards()) {
                cards.add(new JsonObject().put("node", c.node().name()).put("uuid", c.uuid())
                        .put("index", c.info() == null ? null : c.info().index()));
                idle += DerivedMetric.idle(c.latest(Metric.GPU_UTIL), c.allocated()) == 1 ? 1 : 0;
                pricePerHour += c.cardHourPrice();
            }
            double tokens = t.appLatest(Metric.TOKENS_PER_SEC);
            double perMillion = pricePerHour / (tokens * 3600) * 1e6;
            out.add(new JsonObject().put("name", t.name()).put("owner", t.owner()).put("business", t.business())
                    .put("queue", t.queue()).put("cards", cards)
                    .put("tokensPerSec", finite(tokens)).put("ttftP99Ms", finite(t.appLatest(Metric.TTFT_P99_MS)))
                    .put("latencyP99Ms", finite(t.appLatest(Metric.LATENCY_P99_MS)))
                    .put("requestsPerSec", finite(t.appLatest(Metric.REQUESTS_PER_SEC)))
                    .put("idleRatio", t.cards().isEmpty() ? null : round((double) idle / t.cards().size()))
                    .put("costPerMillionTokens", tokens > 0 ? finite(perMillion) : null)
                    .put("requestedCards", t.requestedCards())
                    .put("requestedVsUsed", finite(t.requestedVsUsed()))
                    .put("effectiveComputeRatio", finite(DerivedMetric.effectiveComputeRatio(
                            DerivedMetric.achievedFlops(tokens, t.appLatest(Metric.SAMPLES_PER_SEC), t.flopsPerToken(),
                                    t.flopsPerSample()), t.peakFlops()))));
        }
        Replies.json(ctx, 200, new JsonObject().put("tasks", out).put("total", all.size()));
    }

    private Map<String, TaskState> tasksByName() {
        Map<String, TaskState> out = new HashMap<>();
        gateway.fleet().tasks().forEach(t -> out.put(t.name(), t));
        return out;
    }

    /**
     * The severity of the most urgent firing alert on each card ({@code node/uuid}) and on each node (alerts
     * naming the node but no card).
     */
    private Map<String, String> urgentByCard() {
        Map<String, String> out = new HashMap<>();
        for (Alert a : gateway.ledger().live()) {
            String node = a.labels().get("node");
            if (node == null) {
                continue;
            }
            String uuid = a.labels().get("uuid");
            out.merge(uuid == null ? node : node + "/" + uuid, a.severity(), FleetRoutes::moreUrgent);
        }
        return out;
    }

    private static String moreUrgent(String a, String b) {
        return rank(a) <= rank(b) ? a : b;
    }

    private static int rank(String severity) {
        return Arrays.stream(Severity.values()).filter(s -> s.key().equals(severity)).findFirst()
                .map(Enum::ordinal).orElse(Severity.values().length);
    }

    private static boolean onCard(Alert a, String node, String uuid) {
        return node.equals(a.labels().get("node")) && (uuid.equals(a.labels().get("uuid"))
                || !a.labels().containsKey("uuid"));
    }

    private static Integer index(Map<String, Integer> strings, JsonArray table, String s) {
        if (s == null) {
            return null;
        }
        return strings.computeIfAbsent(s, k -> {
            table.add(k);
            return table.size() - 1;
        });
    }

    private static Double memUsed(CardState c) {
        Long total = c.info() == null ? null : c.info().memTotalBytes();
        double used = c.latest(Metric.MEM_USED_BYTES);
        return total == null || total <= 0 ? Double.NaN : used / total * 100;
    }

    private static Double throttling(CardState c) {
        double mask = c.latest(Metric.CLOCK_EVENT_REASONS);
        return Double.isNaN(mask) ? Double.NaN : ((long) mask & THROTTLE_BITS) != 0 ? 1.0 : 0.0;
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? round(v) : null;
    }

    /** Three significant decimals are all a colour or a chart can show. */
    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
