package io.gpuwatch.cli;

import io.gpuwatch.cli.alerting.AlertingLoad;
import io.gpuwatch.cli.alerting.MentionRef;
import io.gpuwatch.cli.alerting.Wiring;
import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.backtest.RecentFrames;
import io.gpuwatch.gateway.capacity.Since;
import io.gpuwatch.gateway.capacity.UsageKeeper;
import io.gpuwatch.gateway.cluster.Cluster;
import io.gpuwatch.gateway.cluster.ClusterSettings;
import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.digest.DigestChannel;
import io.gpuwatch.gateway.digest.Digests;
import io.gpuwatch.gateway.http.ApiAccess;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.ingest.ProbeEndpoint;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.gateway.reload.WatchedFile;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.tls.TlsFiles;
import io.gpuwatch.gateway.warm.WarmUp;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import sun.misc.Signal;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * {@code gpuwatch gateway}: takes probe connections, evaluates rules and sends notifications. The rules reload
 * when their files change, on SIGHUP (not on Windows, which has no such signal) and on POST /-/reload.
 */
@Command(name = "gateway", mixinStandardHelpOptions = true,
        description = "Run a gateway: probes connect to /v1/probe, rules are evaluated on their readings, "
                + "notifications go through the --alerting file's routing to its receivers (without one: to the "
                + "console and any webhooks). Rules reload when their files change, "
                + "on SIGHUP (not on Windows) and on POST /-/reload; a load with errors keeps the running rules.")
final class GatewayCommand implements Callable<Integer> {
    private static final Logger LOG = Logger.getLogger(GatewayCommand.class.getName());

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:9464",
            description = "where probes and HTTP clients connect (default: ${DEFAULT-VALUE}, this machine only); "
                    + "any other address needs --api-tokens")
    String listen;

    @Option(names = "--api-tokens", paramLabel = "FILE",
            description = "API token file: 'sha256:<hex> <viewer|operator|admin> <name>' per line (see 'gpuwatch "
                    + "token new --role'); every /api call and POST /-/reload then needs one. Without it the API is "
                    + "open to this machine only, and the gateway listens on loopback only")
    Path apiTokens;

    @Option(names = "--cors-origin", paramLabel = "ORIGIN", split = ",",
            description = "browser origins (e.g. https://grafana.example.com) allowed to call the API across "
                    + "sites; any other page's requests are refused")
    List<String> corsOrigins;

    @Option(names = "--tls-cert", paramLabel = "PEM",
            description = "certificate chain (PEM) to serve HTTPS and WSS with, read again when it changes; with --tls-key")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "the certificate's private key (PEM); with --tls-cert")
    Path tlsKey;

    @Option(names = "--protect-metrics",
            description = "/metrics needs a viewer token too (default: open, for a Prometheus without credentials)")
    boolean protectMetrics;

    @Option(names = "--api-rate", paramLabel = "PER_SECOND", defaultValue = "50",
            description = "requests each API token may make per second, in bursts of twice that; above it 429 "
                    + "(default: ${DEFAULT-VALUE})")
    int apiRate;

    @Option(names = "--rules", paramLabel = "PATH", split = ",",
            description = "rule files or directories (default: examples/rules)")
    List<Path> rules;

    @Option(names = "--reload-interval", paramLabel = "SECONDS", defaultValue = "5",
            description = "how often to look at the rule, token and TLS files for changes; 0 turns that off "
                    + "(default: ${DEFAULT-VALUE})")
    int reloadIntervalSeconds;

    @Option(names = "--tokens", paramLabel = "FILE", required = true,
            description = "token file: 'sha256:<hex> <node-pattern>' per line (see 'gpuwatch token new')")
    Path tokens;

    @Option(names = "--max-frame-bytes", defaultValue = "1048576", description = "largest frame taken (default: ${DEFAULT-VALUE})")
    int maxFrameBytes;

    @Option(names = "--preview-memory-mb", paramLabel = "MB", defaultValue = "64",
            description = "recent frames kept for the console's rule preview, up to an hour (0: none, and no "
                    + "preview; default: ${DEFAULT-VALUE})")
    int previewMemoryMb;

    @Option(names = "--max-frames-per-second", defaultValue = "50",
            description = "per connection; above it samples are shed, never events (default: ${DEFAULT-VALUE})")
    int maxFramesPerSecond;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "where alerts, pending notifications and what was sent (DIR/gpuwatch.mv.db, on disk "
                    + "before acted on) and learned baselines (DIR/baselines.jsonl, written every 5 minutes and on "
                    + "stop) are kept, read at start; without it all of them are in memory only and lost on restart")
    Path dataDir;

    @Option(names = "--history-retention", paramLabel = "DURATION", defaultValue = "30d",
            description = "how long the usage history behind the capacity report is kept in the store (with "
                    + "--data-dir): 12h, 30d, 8w… (default: ${DEFAULT-VALUE}); about 31 KB per card per day for tasks "
                    + "of 8 cards (docs/performance.md, Usage history)")
    String historyRetention;

    @Option(names = "--history-resolution", paramLabel = "DURATION", defaultValue = "1m",
            description = "how often the usage history is sampled, each row standing for that long "
                    + "(default: ${DEFAULT-VALUE})")
    String historyResolution;

    @Option(names = "--pricing", paramLabel = "FILE",
            description = "card-hour prices (currency, card_hour: default, models, businesses) for costPerToken "
                    + "and the digests' cost figures; without it costs are unknown")
    Path pricingFile;

    @Option(names = "--oncall", paramLabel = "FILE",
            description = "people and on-call schedules (docs/oncall.md) for GET /api/v1/oncall and the schedules' "
                    + "calendars; read at start")
    Path oncallFile;

    @Option(names = "--cluster",
            description = "join other gateways (Hazelcast, TCP-IP join on --cluster-members): each node is served by "
                    + "one gateway, probes of other nodes are redirected there, and each notification is sent once")
    boolean cluster;

    @Option(names = "--cluster-members", paramLabel = "HOST:PORT", split = ",",
            description = "the cluster ports of the gateways to join, this one included; with --cluster")
    List<String> clusterMembers;

    @Option(names = "--cluster-port", paramLabel = "PORT", defaultValue = "5701",
            description = "this gateway's cluster port (default: ${DEFAULT-VALUE}); with --cluster")
    int clusterPort;

    @Option(names = "--cluster-host", paramLabel = "HOST",
            description = "the address peers and probes reach this gateway at (default: the --listen host, "
                    + "which then cannot be 0.0.0.0); with --cluster")
    String clusterHost;

    @Option(names = "--advertise-url", paramLabel = "URL",
            description = "the probe URL redirected probes are sent to (default: ws://CLUSTER-HOST:PORT/v1/probe); "
                    + "with --cluster")
    String advertiseUrl;

    @Option(names = "--no-warm-up",
            description = "skip the synthetic incident run through a scratch gateway at start, which makes the "
                    + "first real page as fast as the later ones")
    boolean noWarmUp;

    @Mixin
    Receivers receivers;

    @Mixin
    NotifyOptions notify;

    /** The --api-tokens file, once read. */
    private WatchedFile<ApiTokens> apiTokenFile;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        int colon = listen.lastIndexOf(':');
        if (colon < 0) {
            err.println("--listen: expected HOST:PORT, got " + listen);
            return 2;
        }
        String host = listen.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(listen.substring(colon + 1));
        } catch (NumberFormatException e) {
            err.println("--listen: not a port number: " + listen.substring(colon + 1));
            return 2;
        }
        if (previewMemoryMb < 0) {
            err.println("--preview-memory-mb: cannot be negative, got " + previewMemoryMb);
            return 2;
        }
        if (reloadIntervalSeconds < 0) {
            err.println("--reload-interval: cannot be negative, got " + reloadIntervalSeconds);
            return 2;
        }
        List<Path> rulePaths = rules == null || rules.isEmpty() ? List.of(Home.resolve("examples/rules")) : rules;
        RuleSet ruleSet = Loading.rules(rulePaths, err);
        if (ruleSet == null) {
            return 1;
        }
        WatchedFile<TokenFile> probeTokens = WatchedFile.read(tokens, (f, problems) -> {
            TokenFile.Load load = TokenFile.read(f);
            load.problems().forEach(p -> problems.accept(p.toString()));
            return load.tokens();
        }, err::println);
        if (probeTokens == null) {
            err.flush();
            return 1;
        }
        if (probeTokens.get().size() == 0) {
            err.println(tokens + ": no tokens, so no probe could connect; add one with 'gpuwatch token new'");
            err.flush();
            return 1;
        }
        ApiAccess access = access(host, err);
        if (access == null) {
            return 2;
        }
        IngestConfig d = IngestConfig.DEFAULTS;
        IngestConfig ingest = new IngestConfig(maxFrameBytes, maxFramesPerSecond, Math.max(maxFramesPerSecond * 4, d.burstFrames()),
                d.maxCardsPerNode(), d.maxBadFrames(), d.helloTimeoutMs(), d.ackIntervalMs(), d.intervalMs());
        if ((tlsCert == null) != (tlsKey == null)) {
            err.println(tlsCert == null ? "--tls-key: give the certificate too, with --tls-cert"
                    : "--tls-cert: give its private key too, with --tls-key");
            err.flush();
            return 2;
        }
        TlsFiles tls = tlsCert == null ? null : TlsFiles.read(tlsCert, tlsKey, err::println);
        if (tlsCert != null && tls == null) {
            err.flush();
            return 1;
        }
        if (!notify.check(err)) {
            return 2;
        }
        String external = notify.externalUrl((tls == null ? "http://" : "https://")
                + (host.equals("0.0.0.0") ? "localhost" : host) + ":" + port);
        GatewayConfig config = notify.apply(new GatewayConfig(host, port, ingest, 1000, external, dataDir));

        Pricing pricing = Loading.pricing(pricingFile, err);
        if (pricing == null) {
            return 1;
        }
        Since.Parsed retention = Since.parse(historyRetention, Long.MAX_VALUE);
        Since.Parsed resolution = Since.parse(historyResolution, Long.MAX_VALUE);
        if (!retention.ok() || !resolution.ok() || resolution.millis() > retention.millis()) {
            err.println(!retention.ok() ? "--history-retention: " + retention.error() : !resolution.ok()
                    ? "--history-resolution: " + resolution.error()
                    : "--history-resolution: must not be longer than --history-retention");
            err.flush();
            return 2;
        }

        AlertingLoad alerting = receivers.alertingFile(err);
        if (alerting != null && !alerting.ok()) {
            return 1;
        }
        WatchedFile<Roster> rosterFile = null;
        if (oncallFile != null) {
            List<MentionRef> mentions = alerting == null ? List.of()
                    : alerting.receivers().stream().flatMap(r -> r.mentions().stream()).toList();
            rosterFile = WatchedFile.read(oncallFile, Loading.rosterReader(mentions), err::println);
            err.flush();
            if (rosterFile == null) {
                return 1;
            }
        }
        Supplier<Roster> roster = rosterFile == null ? () -> Roster.EMPTY : rosterFile;
        ClusterSettings clusterSettings = null;
        if (cluster) {
            clusterSettings = clusterSettings(host, port, err);
            if (clusterSettings == null) {
                return 2;
            }
        }
        Cluster joined = null;
        Vertx vertx;
        if (clusterSettings == null) {
            vertx = Vertx.vertx();
        } else {
            try {
                joined = Cluster.join(clusterSettings).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                err.println("gateway could not join the cluster on " + clusterSettings.host() + ":"
                        + clusterSettings.port() + ": " + rootMessage(e));
                err.flush();
                return 1;
            }
            vertx = joined.vertx();
        }
        Receivers.Delivery out;
        try {
            out = receivers.build(vertx, external, alerting, roster);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.flush();
            vertx.close();
            return 2;
        }
        Duration reloadInterval = Duration.ofSeconds(reloadIntervalSeconds);
        probeTokens.watch(vertx, reloadInterval);
        if (apiTokenFile != null) {
            apiTokenFile.watch(vertx, reloadInterval);
        }
        if (tls != null) {
            tls.watch(vertx, reloadInterval);
        }
        if (rosterFile != null) {
            rosterFile.watch(vertx, reloadInterval);
        }
        RuleFiles ruleFiles = new RuleFiles(rulePaths, reloadInterval);
        Gateway gateway = new Gateway(config, ruleSet, ruleFiles, probeTokens, out.receivers(), out.routing(),
                InstantSource.system()).access(access).tls(tls).roster(roster, oncallFile)
                .previewMemory(previewBudget())
                .usageHistory(new UsageKeeper.Settings(resolution.millis(), retention.millis()));
        if (out.steps() != null) {
            gateway.stepReceivers(out.steps());
        }
        // read by the fleet on the gateway's event loop only after deployment, which publishes it
        gateway.fleet().usePricing(pricing);
        if (alerting != null) {
            List<DigestChannel> channels = alerting.digests(new Wiring(vertx, WebClient.create(vertx), external,
                    System.out));
            if (!channels.isEmpty()) {
                gateway.digests(new Digests(channels, InstantSource.system(), notify.publicUrl, pricing));
            }
            gateway.pagerHooks(alerting.pagerHooks());
            gateway.alertingFile(receivers.alerting);
        }
        if (joined != null) {
            gateway.clustered(joined);
        }
        if (!noWarmUp) {
            warmUp(vertx, err);
        }
        String deployment;
        try {
            deployment = vertx.deployVerticle(gateway).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            err.println("gateway did not start: " + rootMessage(e));
            err.flush();
            vertx.close();
            return 1;
        }
        reloadOnSighup(gateway, rosterFile, err);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                notify.stop(vertx, deployment);
            } finally {
                stopped.countDown();
            }
        }, "gpuwatch-shutdown"));
        stopped.await();
        return 0;
    }

    /**
     * Who may use the API, from --api-tokens, --cors-origin, --protect-metrics and --api-rate; null after saying
     * what is wrong, an open API on a public address included.
     */
    private ApiAccess access(String host, PrintWriter err) {
        Supplier<ApiTokens> tokens = ApiTokens::none;
        if (apiTokens != null) {
            // an empty file would open the API, so an edit that empties it is refused like a broken one
            apiTokenFile = WatchedFile.read(apiTokens, (f, problems) -> {
                ApiTokens.Load load = ApiTokens.read(f);
                load.problems().forEach(p -> problems.accept(p.toString()));
                if (load.ok() && load.tokens().isEmpty()) {
                    problems.accept(f + ": no API tokens, so nobody could use the API; add one with 'gpuwatch "
                            + "token new --role admin --name NAME --file " + f + "'");
                    return null;
                }
                return load.tokens();
            }, err::println);
            if (apiTokenFile == null) {
                err.flush();
                return null;
            }
            tokens = apiTokenFile;
        }
        List<String> origins = corsOrigins == null ? List.of() : corsOrigins;
        for (String o : origins) {
            if (!o.matches("https?://[^/\\s:]+(:\\d{1,5})?")) {
                err.println("--cors-origin: expected an origin such as https://grafana.example.com (scheme, host and "
                        + "port only), got " + o);
                err.flush();
                return null;
            }
        }
        if (apiRate < 1) {
            err.println("--api-rate: expected 1 or more requests a second, got " + apiRate);
            err.flush();
            return null;
        }
        ApiAccess access = new ApiAccess(tokens, Set.copyOf(origins), !protectMetrics, apiRate, apiRate * 2);
        Optional<String> refusal = access.refusal(host);
        if (refusal.isPresent()) {
            err.println("--listen: " + refusal.get());
            err.flush();
            return null;
        }
        return access;
    }

    /** The --cluster-* settings, or null after saying what is wrong. */
    private ClusterSettings clusterSettings(String listenHost, int port, PrintWriter err) {
        String at = clusterHost != null ? clusterHost : listenHost;
        if (at.equals("0.0.0.0") || at.isBlank()) {
            err.println("--cluster: peers and probes need this gateway's own address; give --cluster-host (the "
                    + "--listen host is " + listenHost + ")");
            err.flush();
            return null;
        }
        if (clusterMembers == null || clusterMembers.isEmpty()) {
            err.println("--cluster: give the gateways to join with --cluster-members HOST:PORT,...");
            err.flush();
            return null;
        }
        String url = advertiseUrl != null ? advertiseUrl
                : (tlsCert != null ? "wss://" : "ws://") + at + ":" + port + ProbeEndpoint.PATH;
        if (!url.startsWith("ws://") && !url.startsWith("wss://")) {
            err.println("--advertise-url: expected ws://HOST:PORT/v1/probe or wss://..., got " + url);
            err.flush();
            return null;
        }
        try {
            return new ClusterSettings(at, clusterPort, clusterMembers, url);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.flush();
            return null;
        }
    }

    /**
     * SIGHUP takes the same path as POST /-/reload for the rules, and reads the on-call file again if it changed;
     * the reloader and the watched file log the outcome.
     */
    private static void reloadOnSighup(Gateway gateway, WatchedFile<Roster> rosterFile, PrintWriter err) {
        try {
            Signal.handle(new Signal("HUP"), s -> {
                gateway.reloader().ifPresent(r -> r.reload("SIGHUP"));
                // on the signal's own thread, which no event loop waits on
                if (rosterFile != null) {
                    rosterFile.check();
                }
            });
        } catch (IllegalArgumentException e) {
            err.println("no SIGHUP on this platform: reload the rules with POST /-/reload or by saving a rule file");
            err.flush();
        }
    }

    /**
     * Runs the warm-up incident before the gateway takes probes; a warm-up that fails costs only the first page's
     * speed, so it is reported and the gateway starts all the same.
     */
    private static void warmUp(Vertx vertx, PrintWriter err) {
        try {
            Duration took = WarmUp.run(vertx, Duration.ofSeconds(10)).toCompletionStage().toCompletableFuture()
                    .get(15, TimeUnit.SECONDS);
            LOG.info("warm-up: a synthetic XID paged through a scratch pipeline in " + took.toMillis() + " ms");
        } catch (Exception e) {
            err.println("gateway: warm-up did not complete (" + rootMessage(e) + "); the first page may be slower");
            err.flush();
        }
    }

    /** The preview's memory: what --preview-memory-mb asks, within a quarter of the heap the JVM may grow to. */
    private long previewBudget() {
        long asked = previewMemoryMb * (1L << 20);
        long budget = RecentFrames.budgetFor(asked, Runtime.getRuntime().maxMemory());
        if (budget < asked) {
            LOG.info("rule preview: keeps " + (budget >> 20) + " MiB of recent frames, a quarter of the heap, not the "
                    + previewMemoryMb + " MiB of --preview-memory-mb");
        }
        return budget;
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }
}
