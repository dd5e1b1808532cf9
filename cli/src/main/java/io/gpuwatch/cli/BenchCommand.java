package io.gpuwatch.cli;

import io.gpuwatch.cli.chaos.ChaosBench;
import io.gpuwatch.cli.chaos.ChaosReport;
import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.GatewayStats;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.receiver.webhook.WebhookConfig;
import io.gpuwatch.notify.receiver.webhook.WebhookReceiver;
import io.gpuwatch.probe.load.FleetLoad;
import io.gpuwatch.probe.load.LatencySummary;
import io.gpuwatch.probe.load.LoadPlan;
import io.gpuwatch.probe.load.LoadStats;
import io.gpuwatch.probe.load.LoadTarget;
import io.gpuwatch.probe.load.PageReceiver;
import io.gpuwatch.probe.load.XidSent;
import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code gpuwatch bench …}: load generators that measure a gateway from the outside. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Measure a gateway under load.",
        subcommands = {BenchCommand.Fleet.class, BenchCommand.Chaos.class})
final class BenchCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code gpuwatch bench fleet}: a simulated fleet over real WebSockets, with scripted XIDs and their latency. */
    @Command(name = "fleet", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Open one WebSocket per simulated node to a gateway and speak protocol v1 as probes do: a "
                    + "hello, a sample with every card metric each interval, app frames, and an XID 79 on a known "
                    + "card at each --xid-at. Reports what it sent and what was acknowledged every --report-every "
                    + "and at the end, and stops by itself after --duration. With --webhook-port it also receives the "
                    + "gateway's webhook and reports XID sent → page received latency. Exits 1 when a frame stayed "
                    + "unacknowledged or an XID did not page.")
    static final class Fleet implements Callable<Integer> {
        @Option(names = "--nodes", defaultValue = "100", description = "simulated nodes, one WebSocket each (default: ${DEFAULT-VALUE})")
        int nodes;

        @Option(names = "--cards", defaultValue = "8", description = "cards per node (default: ${DEFAULT-VALUE})")
        int cards;

        @Option(names = "--interval", defaultValue = "1s", paramLabel = "DURATION",
                description = "sample interval per node (default: ${DEFAULT-VALUE})")
        String interval;

        @Option(names = "--duration", defaultValue = "5m", paramLabel = "DURATION",
                description = "how long to sample; then wait for acks and pages (--drain) and stop (default: ${DEFAULT-VALUE})")
        String duration;

        @Option(names = "--gateway", paramLabel = "URL", defaultValue = "ws://127.0.0.1:9464/v1/probe", split = ",",
                description = "the gateway's probe endpoint (default: ${DEFAULT-VALUE}); for a cluster, list its "
                        + "gateways (repeat the option or separate them with commas): the nodes connect to them in "
                        + "turn and each fails over along the list")
        List<String> gateway;

        @Option(names = "--token-file", paramLabel = "FILE",
                description = "file whose first line is the probe token (as printed by 'gpuwatch token new'); "
                        + "the token must be allowed for the node names (e.g. --node 'bench-*')")
        Path tokenFile;

        @Option(names = "--embedded", description = "start a gateway in this process instead of using --gateway")
        boolean embedded;

        @Option(names = "--rules", paramLabel = "PATH", split = ",",
                description = "rule files of the --embedded gateway (default: examples/rules)")
        List<Path> rules;

        @Option(names = "--xid-at", paramLabel = "DURATION", split = ",",
                description = "offsets into the run at which an XID 79 is sent, each on another node, e.g. 60s,180s")
        List<String> xidAt = new ArrayList<>();

        @Option(names = "--webhook-port", paramLabel = "PORT",
                description = "receive the gateway's webhook on 127.0.0.1:PORT (any path; 0 = any free port, "
                        + "only with --embedded) and report XID latency")
        Integer webhookPort;

        @Option(names = "--node-prefix", defaultValue = "bench-", description = "node names are this and a number (default: ${DEFAULT-VALUE})")
        String nodePrefix;

        @Option(names = "--app-every", defaultValue = "10",
                description = "every how many samples a node also sends an app frame; 0 for none (default: ${DEFAULT-VALUE})")
        int appEvery;

        @Option(names = "--event-loops", paramLabel = "N",
                description = "event loops that drive the nodes (default: half the cores, at least 1)")
        Integer eventLoops;

        @Option(names = "--connect-rate", defaultValue = "200", paramLabel = "NODES_PER_S",
                description = "nodes come online at this rate (connect, then sample), spread over at least one interval "
                        + "(default: ${DEFAULT-VALUE})")
        double connectRate;

        @Option(names = "--max-unacked", defaultValue = "600",
                description = "unacknowledged frames a node keeps for replay after a reconnect (default: ${DEFAULT-VALUE})")
        int maxUnacked;

        @Option(names = "--report-every", defaultValue = "10s", paramLabel = "DURATION",
                description = "progress line interval (default: ${DEFAULT-VALUE})")
        String reportEvery;

        @Option(names = "--drain", defaultValue = "15s", paramLabel = "DURATION",
                description = "after sampling ends, wait up to this long for the last acks and pages (default: ${DEFAULT-VALUE})")
        String drain;

        @Option(names = "--summary-json", paramLabel = "FILE", description = "also write the final figures to this file as JSON")
        Path summaryJson;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            LoadPlan plan;
            long reportMs;
            long drainMs;
            List<LoadTarget> targets;
            try {
                List<Long> xids = new ArrayList<>();
                for (String x : xidAt) {
                    xids.add(millis("--xid-at", x));
                }
                if (!(connectRate > 0)) {
                    throw new IllegalArgumentException("--connect-rate must be positive, got " + connectRate);
                }
                plan = new LoadPlan(nodes, cards, millis("--interval", interval), millis("--duration", duration),
                        nodePrefix, xids, appEvery, maxUnacked, Math.round(nodes * 1000 / connectRate));
                reportMs = millis("--report-every", reportEvery);
                drainMs = millis("--drain", drain);
                if (reportMs < 1) {
                    throw new IllegalArgumentException("--report-every must be positive, got " + reportEvery);
                }
                if (webhookPort != null && (webhookPort < 0 || webhookPort > 65535 || webhookPort == 0 && !embedded)) {
                    throw new IllegalArgumentException("--webhook-port must be a port number (0 only with --embedded), got "
                            + webhookPort);
                }
                targets = embedded ? null : targets();
            } catch (IllegalArgumentException e) {
                err.println(e.getMessage());
                err.flush();
                return 2;
            }
            int loops = eventLoops != null ? eventLoops : Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
            if (loops < 1) {
                err.println("--event-loops must be at least 1, got " + loops);
                err.flush();
                return 2;
            }

            Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(loops + 1));
            Vertx gatewayVertx = null;
            PageReceiver pages = null;
            Gateway embeddedGateway = null;
            try {
                if (webhookPort != null) {
                    pages = new PageReceiver(vertx, System::currentTimeMillis);
                    int bound = await(pages.listen("127.0.0.1", webhookPort));
                    err.println("gpuwatch bench: webhook receiver on http://127.0.0.1:" + bound + "/ (point the gateway's --webhook here)");
                    webhookPort = bound;
                }
                if (embedded) {
                    RuleSet ruleSet = Loading.rules(rules, err);
                    if (ruleSet == null) {
                        return 1;
                    }
                    String token = TokenFile.newToken();
                    TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(token, "*")));
                    gatewayVertx = Vertx.vertx();
                    List<Receiver> receivers = webhookPort == null ? List.of()
                            : List.of(WebhookReceiver.create(gatewayVertx, WebClient.create(gatewayVertx), "bench",
                                    WebhookConfig.of("http://127.0.0.1:" + webhookPort + "/gpuwatch"), "http://127.0.0.1"));
                    embeddedGateway = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000,
                            "http://127.0.0.1"), ruleSet, () -> tokens, receivers, InstantSource.system());
                    await(gatewayVertx.deployVerticle(embeddedGateway));
                    targets = List.of(new LoadTarget("127.0.0.1", embeddedGateway.port(), LoadTarget.PROBE_PATH, false,
                            token));
                    err.println("gpuwatch bench: embedded gateway on " + urls(targets) + " with " + ruleSet.rules().size() + " rules");
                }
                return run(plan, targets, loops, reportMs, drainMs, vertx, pages, embeddedGateway, out, err);
            } finally {
                if (pages != null) {
                    pages.close();
                }
                closeQuietly(vertx);
                closeQuietly(gatewayVertx);
            }
        }

        private int run(LoadPlan plan, List<LoadTarget> targets, int loops, long reportMs, long drainMs, Vertx vertx,
                        PageReceiver pages, Gateway embeddedGateway, PrintWriter out, PrintWriter err) throws Exception {
            FleetLoad load = new FleetLoad(vertx, plan, targets, loops, System::currentTimeMillis, System.nanoTime());
            err.printf(Locale.ROOT, "gpuwatch bench: %d nodes × %d cards every %d ms for %d s to %s on %d event loops "
                            + "(%.0f card readings/s once all %d nodes are online, %.1f s after the start)%n", plan.nodes(),
                    plan.cardsPerNode(), plan.intervalMs(), plan.durationMs() / 1000, urls(targets), loops,
                    plan.cardReadingsPerSecond(), plan.nodes(), plan.onlineAtMs(plan.nodes() - 1) / 1000.0);
            for (int k = 0; k < plan.xidAtMs().size(); k++) {
                err.printf(Locale.ROOT, "  XID 79 at +%.1f s on %s card %d (%s)%n", plan.xidAtMs().get(k) / 1000.0,
                        plan.nodeName(plan.xidNode(k)), plan.xidCard(k), load.uuid(plan.xidNode(k), plan.xidCard(k)));
            }
            err.flush();
            long cpuAtStart = processCpuNanos();
            await(load.start());
            long started = load.startMs();
            LoadStats last = LoadStats.ZERO;
            long lastAt = started;
            long nextReport = started + reportMs;
            while (System.currentTimeMillis() < load.endMs()) {
                // the main thread only watches; the event loops do the work
                Thread.sleep(Math.max(1, Math.min(100, Math.min(nextReport, load.endMs()) - System.currentTimeMillis())));
                long now = System.currentTimeMillis();
                if (now >= nextReport && now < load.endMs()) {
                    LoadStats s = await(load.stats());
                    out.println(progress(s, last, now - started, now - lastAt));
                    out.flush();
                    last = s;
                    lastAt = now;
                    nextReport += reportMs;
                }
            }
            long drainUntil = load.endMs() + drainMs;
            LoadStats end = await(load.stats());
            while (System.currentTimeMillis() < drainUntil && !(end.unacked() == 0 && allPaged(load, pages))) {
                Thread.sleep(50);
                end = await(load.stats());
            }
            long sampledMs = plan.durationMs();
            long cpuProcess = processCpuNanos() - cpuAtStart;
            GatewayStats gw = embeddedGateway == null ? null : await(embeddedGateway.stats());
            await(load.close());
            LatencySummary latency = pages == null ? null : LatencySummary.of(load.xids(), pages.firstFirings());
            out.println(progress(end, last, System.currentTimeMillis() - started, System.currentTimeMillis() - lastAt));
            summary(out, plan, end, sampledMs, cpuProcess, gw, latency, pages);
            out.flush();
            if (summaryJson != null) {
                writeJson(summaryJson, plan, targets, end, sampledMs, cpuProcess, gw, latency, load.xids(), pages);
            }
            boolean ok = end.unacked() == 0 && end.dropped() == 0 && (latency == null || latency.missing().isEmpty());
            return ok ? 0 : 1;
        }

        private static boolean allPaged(FleetLoad load, PageReceiver pages) {
            if (pages == null) {
                return true;
            }
            List<XidSent> sent = load.xids();
            return sent.size() == load.plan().xidAtMs().size() && sent.stream().allMatch(x -> pages.firstFiring(x) != null);
        }

        private static String progress(LoadStats s, LoadStats before, long elapsedMs, long windowMs) {
            double w = Math.max(1, windowMs) / 1000.0;
            return String.format(Locale.ROOT, "bench fleet: %5.0f s  %d/%d nodes up  frames %,d (%,.0f/s)  samples %,d "
                            + "(%,.0f/s)  events %d  app %,d  acks %,d  unacked %,d  reconnects %d  sent %,.1f MB (%,.2f MB/s)"
                            + "  lag max %d ms", elapsedMs / 1000.0, s.connected(), s.nodes(), s.frames(),
                    (s.frames() - before.frames()) / w, s.samples(), (s.samples() - before.samples()) / w, s.events(),
                    s.appFrames(), s.acks(), s.unacked(), s.reconnects(), s.bytes() / 1e6,
                    (s.bytes() - before.bytes()) / 1e6 / w, s.windowLagMs());
        }

        private void summary(PrintWriter out, LoadPlan plan, LoadStats s, long sampledMs, long cpuProcess, GatewayStats gw,
                             LatencySummary latency, PageReceiver pages) {
            double secs = sampledMs / 1000.0;
            out.printf(Locale.ROOT, "%ngpuwatch bench fleet: %d nodes × %d cards, %.0f s of sampling at %d ms%n",
                    plan.nodes(), plan.cardsPerNode(), secs, plan.intervalMs());
            out.printf(Locale.ROOT, "  sent: %,d frames (%,d samples, %,d app, %,d events), %,d metric values "
                            + "(%,.0f/s), %,.1f MB%n", s.frames(), s.sampleFrames(), s.appFrames(), s.events(), s.samples(),
                    s.samples() / secs, s.bytes() / 1e6);
            out.printf(Locale.ROOT, "  gateway: %,d acks, %,d of %,d frames acknowledged, %,d unacknowledged, %d errors, "
                    + "%d reconnects, %d frames dropped from full buffers%n", s.acks(), s.acked(), s.created(),
                    s.unacked(), s.errors(), s.reconnects(), s.dropped());
            double loopCores = s.cpuNanos() / 1e9 / secs;
            out.printf(Locale.ROOT, "  generator: %.2f CPU-s on its event loops (%.3f cores, %s nodes per core), "
                            + "%.2f CPU-s for the whole process%s; latest sample %d ms after its due time%n",
                    s.cpuNanos() / 1e9, loopCores, loopCores <= 0 ? "n/a" : String.format(Locale.ROOT, "%,.0f", plan.nodes() / loopCores),
                    cpuProcess / 1e9, embedded ? " (embedded gateway included)" : "", s.maxLagMs());
            if (gw != null) {
                out.printf(Locale.ROOT, "  embedded gateway: %,d frames, %,d card readings, %d events, %d duplicates, "
                                + "%d bad, %d shed; %d notifications sent%n", gw.frames(), gw.cardReadings(), gw.events(),
                        gw.duplicates(), gw.badFrames(), gw.shedSamples(), gw.notificationsSent());
            }
            if (latency != null) {
                out.printf(Locale.ROOT, "  XID latency (sent → webhook received): %d sent, %d paged, median %d ms, p99 %d ms, "
                                + "max %d ms (%d webhook posts)%n", latency.sent(), latency.paged(), latency.medianMs(),
                        latency.p99Ms(), latency.maxMs(), pages.posts());
                for (XidSent x : latency.missing()) {
                    out.printf("    not paged: XID 79 on %s card %d (%s), seq %d%n", x.node(), x.card(), x.uuid(), x.seq());
                }
            }
        }

        private void writeJson(Path file, LoadPlan plan, List<LoadTarget> targets, LoadStats s, long sampledMs, long cpuProcess,
                               GatewayStats gw, LatencySummary latency, List<XidSent> xids, PageReceiver pages)
                throws IOException {
            JsonObject j = new JsonObject().put("nodes", plan.nodes()).put("cards", plan.cardsPerNode())
                    .put("intervalMs", plan.intervalMs()).put("durationMs", sampledMs).put("gateway", urls(targets))
                    .put("embedded", embedded)
                    .put("frames", s.frames()).put("sampleFrames", s.sampleFrames()).put("appFrames", s.appFrames())
                    .put("events", s.events()).put("samples", s.samples()).put("bytes", s.bytes()).put("acks", s.acks())
                    .put("framesCreated", s.created()).put("framesAcked", s.acked()).put("unacked", s.unacked())
                    .put("errors", s.errors()).put("reconnects", s.reconnects()).put("dropped", s.dropped())
                    .put("maxLagMs", s.maxLagMs()).put("generatorLoopCpuSeconds", s.cpuNanos() / 1e9)
                    .put("processCpuSeconds", cpuProcess / 1e9);
            JsonArray sent = new JsonArray();
            Map<String, Long> arrivals = pages == null ? Map.of() : pages.firstFirings();
            for (XidSent x : xids) {
                Long at = PageReceiver.covering(arrivals, x);
                sent.add(new JsonObject().put("node", x.node()).put("card", x.card()).put("uuid", x.uuid())
                        .put("seq", x.seq()).put("sentAtMs", x.sentAtMs()).put("pagedAtMs", at)
                        .put("latencyMs", at == null ? null : at - x.sentAtMs()));
            }
            j.put("xids", sent);
            if (latency != null) {
                j.put("latency", new JsonObject().put("sent", latency.sent()).put("paged", latency.paged())
                        .put("minMs", latency.minMs()).put("medianMs", latency.medianMs()).put("p99Ms", latency.p99Ms())
                        .put("maxMs", latency.maxMs()));
            }
            if (gw != null) {
                j.put("embeddedGateway", new JsonObject().put("frames", gw.frames()).put("cardReadings", gw.cardReadings())
                        .put("events", gw.events()).put("duplicates", gw.duplicates()).put("badFrames", gw.badFrames())
                        .put("shedSamples", gw.shedSamples()).put("notificationsSent", gw.notificationsSent()));
            }
            Files.writeString(file, j.encodePrettily() + "\n", StandardCharsets.UTF_8);
        }

        /** The --gateway URLs, each checked before the token is read, as targets presenting the token. */
        private List<LoadTarget> targets() {
            List<LoadTarget> parsed = new ArrayList<>();
            for (String g : gateway) {
                String url = g.strip();
                if (url.isEmpty()) {
                    throw new IllegalArgumentException("--gateway: URL " + (parsed.size() + 1) + " of the list is empty");
                }
                try {
                    parsed.add(LoadTarget.parse(url, null));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--gateway: " + e.getMessage(), e);
                }
            }
            String token = readToken();
            return parsed.stream().map(t -> new LoadTarget(t.host(), t.port(), t.path(), t.ssl(), token)).toList();
        }

        private static String urls(List<LoadTarget> targets) {
            return String.join(", ", targets.stream().map(LoadTarget::url).toList());
        }

        private String readToken() {
            if (tokenFile == null) {
                throw new IllegalArgumentException("--token-file is needed to connect to --gateway "
                        + String.join(",", gateway) + " (or use --embedded)");
            }
            try {
                return Files.readAllLines(tokenFile, StandardCharsets.UTF_8).stream().map(String::strip)
                        .filter(l -> !l.isEmpty()).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("--token-file " + tokenFile + ": the file is empty"));
            } catch (IOException e) {
                throw new IllegalArgumentException("--token-file " + tokenFile + ": cannot read it (" + e.getMessage() + ")");
            }
        }
    }

    /** {@code gpuwatch bench chaos}: SIGKILLs a gateway at random moments and compares what it sent with a clean run. */
    @Command(name = "chaos", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Play a scenario against a gateway in its own JVM (--data-dir, a webhook served by the bench "
                    + "that records every notification) once cleanly, then in --trials that each SIGKILL it --kills "
                    + "times and restart it on the same data dir and port: at random moments, while a notification is "
                    + "in flight (the webhook holds its answer) and during a receiver outage (the webhook answers 503). "
                    + "Compares each trial's notifications with the clean run's: lost pages and resolves, doubled sends "
                    + "(those a receiver can drop by Idempotency-Key apart), out-of-order sends, late resolves. With "
                    + "--cluster, three gateways in a cluster and one of them killed. Exits 1 when a trial lost, "
                    + "disordered or delayed a notification or doubled one under a new key.")
    static final class Chaos implements Callable<Integer> {
        @Option(names = "--trials", defaultValue = "6", description = "trials after the clean run (default: ${DEFAULT-VALUE})")
        int trials;

        @Option(names = "--kills", defaultValue = "3", description = "SIGKILLs per trial (default: ${DEFAULT-VALUE})")
        int kills;

        @Option(names = "--seed", defaultValue = "1", description = "seed of the kill moments and kinds (default: ${DEFAULT-VALUE})")
        long seed;

        @Option(names = "--parallel", defaultValue = "1",
                description = "trials run at once, each with its own gateways and ports (default: ${DEFAULT-VALUE})")
        int parallel;

        @Option(names = "--scenario", paramLabel = "FILE", description = "scenario with a duration (default: bench/chaos/chaos.yaml)")
        Path scenario;

        @Option(names = "--rules", paramLabel = "PATH", split = ",", description = "rule files or directories (default: examples/rules)")
        List<Path> rules;

        @Option(names = "--settle", defaultValue = "90s", paramLabel = "DURATION",
                description = "how long the fleet keeps sampling after the scenario's script, so alerts can resolve "
                        + "(default: ${DEFAULT-VALUE})")
        String settle;

        @Option(names = "--tolerance", defaultValue = "30s", paramLabel = "DURATION",
                description = "a resolve this much behind the clean run's is late (default: ${DEFAULT-VALUE})")
        String tolerance;

        @Option(names = "--cluster", description = "three gateways in a Hazelcast cluster; each kill hits one of them")
        boolean cluster;

        @Option(names = "--work-dir", paramLabel = "DIR",
                description = "where the runs' data dirs and gateway logs go (default: a new temporary directory)")
        Path workDir;

        @Option(names = "--json", description = "print the report as JSON instead of a table")
        boolean json;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            ChaosBench.Settings settings;
            try {
                if (trials < 1 || kills < 1 || parallel < 1) {
                    throw new IllegalArgumentException("--trials, --kills and --parallel must be at least 1, got "
                            + trials + ", " + kills + " and " + parallel);
                }
                long settleMs = millis("--settle", settle);
                long toleranceMs = millis("--tolerance", tolerance);
                Path file = scenario != null ? scenario : Home.resolve("bench/chaos/chaos.yaml");
                Scenario sc = ProbeCommand.loadScenario(file, err);
                if (sc == null) {
                    return 1;
                }
                if (sc.duration() == null) {
                    throw new IllegalArgumentException("--scenario " + file + ": needs a duration: so every run plays "
                            + "the same script");
                }
                List<Path> rulePaths = rules == null || rules.isEmpty() ? List.of(Home.resolve("examples/rules")) : rules;
                if (Loading.rules(rulePaths, err) == null) {
                    return 1;
                }
                if (workDir != null && Files.isDirectory(workDir)) {
                    try (var entries = Files.list(workDir)) {
                        if (entries.findAny().isPresent()) {
                            // its runs would start on the evaluation an earlier one left, and measure nothing
                            throw new IllegalArgumentException("--work-dir " + workDir + " holds an earlier run: "
                                    + "remove it or choose an empty directory");
                        }
                    }
                }
                Path dir = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("gpuwatch-chaos-");
                settings = new ChaosBench.Settings(sc, rulePaths.stream().map(Path::toAbsolutePath).toList(), trials,
                        kills, seed, parallel, settleMs, toleranceMs, cluster, dir.toAbsolutePath());
            } catch (IllegalArgumentException e) {
                err.println(e.getMessage());
                err.flush();
                return 2;
            }
            err.printf(Locale.ROOT, "gpuwatch bench chaos: '%s' for %d s (+%d s settle), %s, a clean run and %d "
                            + "trials of %d kills, %d at a time, seed %d; runs in %s%n", settings.scenario().name(),
                    settings.scenario().duration().toSeconds(), settings.settleMs() / 1000,
                    cluster ? "a cluster of 3 gateways" : "one gateway", trials, kills, parallel, seed,
                    settings.workDir());
            err.flush();
            ChaosReport report;
            try {
                report = ChaosBench.run(settings, err);
            } catch (IOException | ExecutionException e) {
                err.println("gpuwatch bench chaos: " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()));
                err.flush();
                return 1;
            }
            out.println(json ? report.json().encodePrettily() : report.table());
            out.flush();
            return report.troubledTrials() == 0 ? 0 : 1;
        }
    }

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

    /** A duration like 500ms, 1s, 1.5s, 5m or 1h, in ms; fails naming the option. */
    static long millis(String option, String text) {
        Matcher m = DURATION.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException(option + ": expected a duration like 500ms, 1s, 5m or 1h, got '" + text + "'");
        }
        double unit = switch (m.group(2)) {
            case "ms" -> 1;
            case "s" -> 1000;
            case "m" -> 60_000;
            default -> 3_600_000;
        };
        return Math.round(Double.parseDouble(m.group(1)) * unit);
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    private static void closeQuietly(Vertx vertx) {
        if (vertx == null) {
            return;
        }
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // the run is over either way
        }
    }

    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : 0;
    }
}
