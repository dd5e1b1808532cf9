package io.gpuwatch.cli;

import io.gpuwatch.probe.app.ScrapeConfig;
import io.gpuwatch.probe.app.ScrapeConfigLoad;
import io.gpuwatch.probe.app.ScrapeConfigLoader;
import io.gpuwatch.probe.attribution.Attributor;
import io.gpuwatch.probe.attribution.LabelsError;
import io.gpuwatch.probe.attribution.LabelsWatch;
import io.gpuwatch.probe.http.HttpGet;
import io.gpuwatch.probe.nvml.Nvml;
import io.gpuwatch.probe.nvml.NvmlError;
import io.gpuwatch.probe.nvml.NvmlProbe;
import io.gpuwatch.probe.nvml.NvmlResult;
import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.scenario.ScenarioError;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.sim.LabelsFile;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.probe.sim.SimRecorder;
import io.gpuwatch.probe.trace.Recording;
import io.gpuwatch.probe.trace.TraceWriter;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.gpuwatch.probe.uplink.UplinkCore;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.rules.dsl.DslException;
import io.gpuwatch.rules.dsl.Durations;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/** {@code gpuwatch probe}: pushes a node's readings and events (real, simulated or replayed) to a gateway. */
@Command(name = "probe", mixinStandardHelpOptions = true,
        description = "Run a probe against a gateway: read this node's GPUs through NVML (--nvml), simulate a "
                + "fleet (--sim) or replay a recorded trace (--replay); --scrape-config alone runs a probe for a node "
                + "without GPUs that only scrapes inference servers. The probe keeps sampling while the gateway "
                + "is away, buffers within a bound (events before samples), reconnects with back-off and reports "
                + "what it had to drop.")
final class ProbeCommand implements Callable<Integer> {
    static final String PROBE_NAME = "gpuwatch-probe/0.1.0";

    @Option(names = "--gateway", split = ",", paramLabel = "URL",
            description = "the gateway's probe URL, ws://HOST:PORT or wss://HOST:PORT; for a cluster, list its "
                    + "gateways (repeat the option or separate them with commas): the first is tried first, the "
                    + "others in turn when the one in use is down; required except with --sim and --record, which "
                    + "then records the scenario offline, in virtual time")
    List<String> gateway;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "file holding this probe's bearer token; required with --gateway")
    Path tokenFile;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Source source = new Source();

    /** Where card readings come from: at most one, none for a node that only scrapes inference servers. */
    static final class Source {
        @Option(names = "--nvml", description = "read this node's NVIDIA GPUs through NVML")
        boolean nvml;

        @Option(names = "--sim", paramLabel = "SCENARIO",
                description = "simulate the fleet of this scenario file (see examples/scenarios/README.md)")
        Path scenario;

        @Option(names = "--replay", paramLabel = "TRACE",
                description = "replay a trace recorded with --record (JSON lines or binary, plain or .gz)")
        Path replay;
    }

    @Option(names = "--nvml-library", paramLabel = "PATH",
            description = "the NVML library to load (default: libnvidia-ml.so.1 from the loader's path)")
    String nvmlLibrary;

    @Option(names = "--node", paramLabel = "NAME",
            description = "this node's name (default: the host name); with --nvml or --scrape-config")
    String node;

    @Option(names = "--label", paramLabel = "KEY=VALUE",
            description = "a node label sent in hello (repeatable), e.g. --label cluster=a100-east; with --nvml or "
                    + "--scrape-config")
    Map<String, String> labels = new TreeMap<>();

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "1s",
            description = "sampling interval until the gateway asks for another (default: ${DEFAULT-VALUE}); with --nvml")
    String interval;

    @Option(names = "--attribution-labels", paramLabel = "FILE",
            description = "labels file mapping pods, jobs and containers to task/owner/business, re-read when it "
                    + "changes (see docs/attribution.md); with --nvml")
    Path attributionLabels;

    @Option(names = "--proc-root", paramLabel = "DIR", defaultValue = "/proc",
            description = "where the host's /proc is mounted (default: ${DEFAULT-VALUE}); with --nvml")
    Path procRoot;

    @Option(names = "--kubelet", paramLabel = "URL",
            description = "read pod labels from this kubelet (e.g. https://$(NODE_NAME):10250) with the service "
                    + "account's token and CA; with --nvml")
    String kubelet;

    @Option(names = "--scrape-config", paramLabel = "FILE",
            description = "inference servers to scrape for the application layer (see docs/attribution.md); with "
                    + "--nvml through its connection, with --sim or alone as a node of its own without cards")
    Path scrapeConfig;

    @Option(names = "--record", paramLabel = "FILE",
            description = "also write every frame sent to this trace file (.gz compresses), for `rules backtest` "
                    + "and --replay; with --sim and no --gateway, record the scenario offline (as fast as it goes, "
                    + "from its start: time) and write its labels beside the trace as NAME.labels.yaml")
    Path record;

    @Option(names = "--speed", paramLabel = "X", defaultValue = "1",
            description = "replay speed: 1 is real time, 10 ten times faster, max as fast as the gateway acknowledges "
                    + "(default: ${DEFAULT-VALUE}); with --replay")
    String speed;

    @Option(names = "--keep-boot-ids", description = "replay with the trace's own boot ids (default: suffix them, so "
            + "a gateway that has seen the trace takes the replay as a new run); with --replay")
    boolean keepBootIds;

    @Option(names = "--trust", paramLabel = "PEM", description = "CA certificate to verify a wss:// gateway with")
    String trustPem;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    final LongSupplier clock = System::currentTimeMillis;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        if (gateway == null || gateway.isEmpty()) {
            if (source.scenario != null && record != null) {
                String misplaced = misplacedOption();
                return misplaced != null ? usage(err, misplaced) : recordOffline(err);
            }
            return usage(err, "Missing required option: '--gateway=URL' (only --sim with --record runs without one)");
        }
        if (tokenFile == null) {
            return usage(err, "Missing required option: '--token-file=FILE'");
        }
        UplinkConfig config = uplinkConfig(err);
        if (config == null) {
            return 2;
        }
        String misplaced = misplacedOption();
        if (misplaced != null) {
            return usage(err, misplaced);
        }
        if (source.nvml) {
            return runNvml(config, err);
        }
        if (source.replay == null && source.scenario == null) {
            return runScrapeOnly(config, err);
        }
        if (!vertxPresent()) {
            err.println((source.replay != null ? "--replay" : "--sim") + " runs from gpuwatch.jar (./gpuwatch picks "
                    + "it): this is the NVML probe's own jar, without Vert.x");
            err.flush();
            return 2;
        }
        return source.replay != null ? new VertxModes(this).replay(config, err) : new VertxModes(this).sim(config, err);
    }

    /** Whether Vert.x is on the class path: the probe's own jar leaves it out, --sim and --replay need it. */
    private static boolean vertxPresent() {
        return ProbeCommand.class.getClassLoader().getResource("io/vertx/core/Vertx.class") != null;
    }

    /** An option that does not apply to the chosen source, named so the user is not left guessing. */
    private String misplacedOption() {
        if (!source.nvml && source.scenario == null && source.replay == null && scrapeConfig == null) {
            return "choose where readings come from: --nvml, --sim or --replay (or --scrape-config alone, for a "
                    + "node without GPUs)";
        }
        if (source.replay != null && scrapeConfig != null) {
            return "--scrape-config cannot be combined with --replay: the trace's own app frames are replayed, and "
                    + "live scrapes would mix into a recorded timeline";
        }
        if (!source.nvml) {
            for (String[] o : new String[][]{
                    {"--nvml-library", nvmlLibrary}, {"--kubelet", kubelet},
                    {"--attribution-labels", attributionLabels == null ? null : "x"}}) {
                if (o[1] != null) {
                    return o[0] + " applies to --nvml only";
                }
            }
            if (scrapeConfig == null && (node != null || !labels.isEmpty())) {
                return (node != null ? "--node" : "--label") + " applies to --nvml or --scrape-config only";
            }
        }
        if (source.replay == null && (keepBootIds || !"1".equals(speed))) {
            return (keepBootIds ? "--keep-boot-ids" : "--speed") + " applies to --replay only";
        }
        if (source.replay != null && record != null) {
            return "--record cannot be combined with --replay: the trace is already a recording";
        }
        return null;
    }

    /** {@code --sim S --record T} without a gateway: the scenario in virtual time into T, its labels beside it. */
    private int recordOffline(PrintWriter err) throws Exception {
        if (trustPem != null || tokenFile != null) {
            return usage(err, (trustPem != null ? "--trust" : "--token-file") + " applies with --gateway only");
        }
        Scenario sc = loadScenario(source.scenario, err);
        if (sc == null) {
            return 1;
        }
        if (sc.duration() == null) {
            err.println(source.scenario + ": an offline recording (--record without --gateway) needs the scenario's "
                    + "'duration'");
            err.flush();
            return 1;
        }
        // a recording is a function of the scenario: it replaces the file rather than appending another run
        Files.deleteIfExists(record);
        TraceWriter writer = openTrace(err);
        if (writer == null) {
            return 1;
        }
        SimFleet fleet = new SimFleet(sc, sc.startMs());
        List<SimRecorder.Label> labels = new SimRecorder(fleet, writer).run();
        closeTrace(writer, err);
        long written = writer.stats().written();
        Path labelsFile = LabelsFile.write(record, sc.name(), sc.startMs(), labels);
        err.println("probe: recorded scenario '" + sc.name() + "' (" + sc.nodes() + " nodes × " + sc.cardsPerNode()
                + " cards, " + sc.duration().toSeconds() + " s) to " + record + ": " + written
                + " frames; " + labels.size() + " labels in " + labelsFile);
        err.flush();
        return writer.stats().failure() == null ? 0 : 1;
    }

    private int runNvml(UplinkConfig config, PrintWriter err) throws Exception {
        long intervalMs;
        try {
            intervalMs = Durations.parse(interval);
        } catch (DslException e) {
            return usage(err, "--interval: " + e.getMessage());
        }
        if (intervalMs < 100) {
            return usage(err, "--interval: at least 100ms, got " + interval);
        }
        String nodeName = node != null ? node : hostName();
        ScrapeConfig scrape = loadScrapeConfig(err);
        if (scrapeConfig != null && scrape == null) {
            return 1;
        }
        if (kubelet != null) {
            String bad = httpUrlProblem(kubelet);
            if (bad != null) {
                return usage(err, "--kubelet: " + bad);
            }
        }
        NvmlHttpClients http = kubelet == null && scrape == null ? null : new NvmlHttpClients();
        Runnable stopHttp = () -> {
            if (http != null) {
                http.stop();
            }
        };
        Attributor.Builder attribution = Attributor.builder(clock).procRoot(procRoot);
        if (attributionLabels != null) {
            attribution.labels(new LabelsWatch(attributionLabels, Duration.ofSeconds(5), clock, errors -> {
                for (LabelsError e : errors) {
                    err.println(e + " (the previous labels stay in force)");
                }
                err.flush();
            }));
        }
        if (kubelet != null) {
            attribution.podLabels(http.podLabels(nodeName, kubelet, err));
        }
        String library = nvmlLibrary != null ? nvmlLibrary : Nvml.defaultLibrary();
        NvmlResult<NvmlProbe> opened = NvmlProbe.open(library, clock, attribution.build(), NvmlProbe.EVENT_WAIT_MS);
        NvmlError failure = opened.error();
        if (failure != null) {
            err.println("--nvml: cannot open NVML from " + library + ": " + failure);
            err.flush();
            stopHttp.run();
            return 1;
        }
        NvmlProbe probe = opened.orElse(null);
        Hello hello = probe.hello(nodeName, UUID.randomUUID().toString(), PROBE_NAME, labels);
        UplinkCore uplink = UplinkCore.overSockets(config, hello, clock);
        uplink.intervalHandler(probe::intervalMs);
        TraceWriter writer = openTrace(err);
        if (record != null && writer == null) {
            probe.close();
            stopHttp.run();
            return 1;
        }
        Consumer<Frame> sink = writer == null ? uplink::send : new Recording(writer).tee(hello, uplink::send);
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            probe.close();
            stopHttp.run();
            await(uplink.close());
            closeTrace(writer, err);
            done.countDown();
        }, "gpuwatch-shutdown"));
        uplink.start();
        probe.start(intervalMs, sink);
        if (scrape != null) {
            http.scrape(scrape, clock, sink);
        }
        err.println("probe: node " + nodeName + ", " + probe.cards().size() + " GPUs through " + library + " every "
                + intervalMs + " ms → " + gateways(config) + (record != null ? ", recording to " + record : ""));
        err.flush();
        done.await();
        return 0;
    }

    /** A node without GPUs (a CPU-only router, a test box) that only scrapes inference servers. */
    private int runScrapeOnly(UplinkConfig config, PrintWriter err) throws InterruptedException {
        ScrapeConfig scrape = loadScrapeConfig(err);
        if (scrape == null) {
            return 1;
        }
        TraceWriter writer = openTrace(err);
        if (record != null && writer == null) {
            return 1;
        }
        ScrapeNode scraping = ScrapeNode.start(config, scrapeHello(), scrape,
                writer == null ? null : new Recording(writer), clock);
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            scraping.stop();
            closeTrace(writer, err);
            done.countDown();
        }, "gpuwatch-shutdown"));
        err.println("probe: node " + scraping.node() + " without GPUs, scraping " + scrape.targets().size()
                + " inference servers every " + scrape.interval().toMillis() + " ms → " + gateways(config)
                + (record != null ? ", recording to " + record : ""));
        err.flush();
        done.await();
        return 0;
    }

    /** Why {@code text} is no http:// or https:// URL with a host, or null when it is one. */
    static String httpUrlProblem(String text) {
        try {
            return HttpGet.fetchable(new URI(text)) ? null
                    : "expected an http:// or https:// URL with a host, like https://node-17:10250, got '" + text + "'";
        } catch (URISyntaxException e) {
            return "not a URL (" + e.getReason() + " at index " + e.getIndex() + "): '" + text + "'";
        }
    }

    /** The hello of a node that has no cards to report, only its inference servers. */
    Hello scrapeHello() {
        return new Hello(Frame.VERSION, node != null ? node : hostName(), UUID.randomUUID().toString(), PROBE_NAME,
                null, null, labels, List.of());
    }

    /** The --scrape-config file, or null when not given or after printing its errors. */
    ScrapeConfig loadScrapeConfig(PrintWriter err) {
        if (scrapeConfig == null) {
            return null;
        }
        ScrapeConfigLoad load = ScrapeConfigLoader.load(scrapeConfig);
        if (load instanceof ScrapeConfigLoad.Invalid invalid) {
            invalid.errors().forEach(e -> err.println(e));
            err.flush();
            return null;
        }
        return ((ScrapeConfigLoad.Loaded) load).config();
    }

    /** The uplink settings from --gateway, --token-file and --trust, or null after saying what is wrong. */
    private UplinkConfig uplinkConfig(PrintWriter err) {
        return uplinkConfig(gateway, tokenFile, trustPem, err);
    }

    /**
     * The uplink settings of a producer's --gateway, --token-file and --trust (the probe's and {@code sched}'s),
     * or null after saying what is wrong.
     */
    static UplinkConfig uplinkConfig(List<String> gateway, Path tokenFile, String trustPem, PrintWriter err) {
        List<URI> urls;
        try {
            urls = gatewayUrls(gateway);
        } catch (IllegalArgumentException e) {
            err.println("--gateway: " + e.getMessage());
            err.flush();
            return null;
        }
        String token;
        try {
            token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            err.println("--token-file: cannot read " + tokenFile + ": " + e.getMessage());
            err.flush();
            return null;
        }
        if (token.isEmpty()) {
            err.println("--token-file: " + tokenFile + " is empty");
            err.flush();
            return null;
        }
        return UplinkConfig.of(urls, token, trustPem);
    }

    /**
     * The probe URLs of the --gateway values, in order (picocli has split the comma-separated ones).
     *
     * @throws IllegalArgumentException naming the first value that is empty or no ws:// or wss:// URL
     */
    static List<URI> gatewayUrls(List<String> values) {
        List<URI> urls = new ArrayList<>();
        for (String v : values) {
            String text = v.strip();
            if (text.isEmpty()) {
                throw new IllegalArgumentException("URL " + (urls.size() + 1) + " of the list is empty");
            }
            urls.add(UplinkConfig.probeUrl(text));
        }
        return urls;
    }

    /** The gateways an uplink of this config tries, for the start-up line. */
    static String gateways(UplinkConfig c) {
        StringBuilder b = new StringBuilder(c.ssl() ? "wss://" : "ws://").append(c.host()).append(':').append(c.port())
                .append(c.path());
        c.others().forEach(u -> b.append(", ").append(u));
        return b.toString();
    }

    TraceWriter openTrace(PrintWriter err) {
        if (record == null) {
            return null;
        }
        try {
            return TraceWriter.open(record);
        } catch (IOException e) {
            err.println("--record: cannot write " + record + ": " + e.getMessage());
            err.flush();
            return null;
        }
    }

    static void closeTrace(TraceWriter writer, PrintWriter err) {
        if (writer == null) {
            return;
        }
        try {
            writer.close();
        } catch (IOException e) {
            err.println("--record: " + e.getMessage());
            err.flush();
        }
    }

    int usage(PrintWriter err, String message) {
        err.println(message);
        err.flush();
        return 2;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            String env = System.getenv("HOSTNAME");
            return env == null || env.isBlank() ? "localhost" : env;
        }
    }

    /** A run that ended by itself needs no shutdown hook, which would otherwise close a closed Vert.x at exit. */
    static void unhook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: it does the closing
        }
    }

    /** Waits up to 5 s for a stopping step, ignoring its failure. */
    static void await(CompletableFuture<?> f) {
        try {
            f.get(5, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // stopping is best effort: the process is ending
        }
    }


    /** The scenario, or null after printing its errors with their positions. */
    static Scenario loadScenario(Path file, PrintWriter err) {
        ScenarioLoad load = ScenarioLoader.load(file);
        if (load instanceof ScenarioLoad.Invalid invalid) {
            for (ScenarioError e : invalid.errors()) {
                err.println(e);
            }
            err.flush();
            return null;
        }
        return ((ScenarioLoad.Loaded) load).scenario();
    }

    /**
     * Stops a runner and its Vert.x within a bound, whatever state they are in. Apart from the command, whose
     * methods picocli lists: a Vert.x type in their signatures would load Vert.x into the lean NVML probe.
     */
    static final class Stop {
        private Stop() {
        }

        static void quietly(Future<Void> closing, Vertx vertx) {
            await(closing);
            await(vertx.close());
        }

        /** Waits up to 5 s for a stopping step, ignoring its failure. */
        static void await(Future<?> f) {
            ProbeCommand.await(f.toCompletionStage().toCompletableFuture());
        }

        /** Closes a Vert.x within a bound. */
        static void vertx(Vertx vertx) {
            await(vertx.close());
        }
    }
}
