package io.gpuwatch.cli;

import io.gpuwatch.probe.sched.MetricsPage;
import io.gpuwatch.probe.sched.SchedProducer;
import io.gpuwatch.probe.sched.ScrapedSource;
import io.gpuwatch.probe.sched.kubernetes.KubeApi;
import io.gpuwatch.probe.sched.kubernetes.KubernetesSource;
import io.gpuwatch.probe.sched.kueue.KueueReader;
import io.gpuwatch.probe.sched.volcano.VolcanoReader;
import io.gpuwatch.probe.sched.SchedSource;
import io.gpuwatch.probe.sched.slurm.SlurmSource;
import io.gpuwatch.probe.uplink.Uplink;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.gpuwatch.rules.dsl.Durations;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/** {@code gpuwatch sched}: reads a scheduler and sends its queues to the gateway as {@code sched} frames. */
@Command(name = "sched", mixinStandardHelpOptions = true,
        description = {"Read a scheduler (Slurm, Kubernetes, Kueue, Volcano) and send each queue's state to the "
                + "gateway as sched frames over the probe protocol (docs/scheduling.md).",
                "A source that fails is reported once (a probe_degraded event) and read again at the next interval."})
final class SchedCommand implements Callable<Integer> {
    static final String PRODUCER_NAME = "gpuwatch-sched/0.1.0";
    /** Where a pod finds its service account's token and the cluster's CA. */
    private static final Path SERVICE_ACCOUNT = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

    @Option(names = "--gateway", split = ",", paramLabel = "URL",
            description = "gateway probe endpoint(s), ws://HOST:PORT or wss://HOST:PORT; comma-separated ones are "
                    + "tried in turn")
    List<String> gateway;

    @Option(names = "--token-file", paramLabel = "FILE", description = "file holding this producer's probe token")
    Path tokenFile;

    @Option(names = "--trust", paramLabel = "PEM", description = "CA certificate to verify a wss:// gateway with")
    String trustPem;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Source source;

    /** Where the queues are read from: exactly one. */
    static final class Source {
        @Option(names = "--slurm", description = "run squeue, sacct and scontrol with --json")
        boolean slurm;

        @Option(names = "--slurm-files", paramLabel = "DIR",
                description = "read squeue.json, scontrol-nodes.json and (optional) sacct.json from DIR at each "
                        + "interval, written there by something else")
        Path slurmFiles;

        @Option(names = "--kubernetes", paramLabel = "URL",
                description = "list and watch the API server (e.g. https://kubernetes.default.svc): pods asking for "
                        + "nvidia.com/gpu, the nodes offering it and pod preemption/eviction events, as one queue "
                        + "named --pool")
        String kubernetes;

        @Option(names = "--kueue", paramLabel = "URL",
                description = "scrape Kueue's metrics (e.g. http://kueue-controller-manager-metrics-service."
                        + "kueue-system:8080/metrics): one queue per ClusterQueue")
        String kueue;

        @Option(names = "--volcano", paramLabel = "URL",
                description = "scrape the Volcano scheduler's metrics (e.g. http://volcano-scheduler-service."
                        + "volcano-system:8080/metrics): one queue per Volcano queue, plus the scheduler as --pool")
        String volcano;
    }

    @Option(names = "--slurm-bin", paramLabel = "DIR",
            description = "where squeue, sacct and scontrol are (default: the PATH); with --slurm")
    Path slurmBin;

    @Option(names = "--no-sacct", description = "do not run sacct (no accounting database): preemptions go "
            + "unreported; with --slurm")
    boolean noSacct;

    @Option(names = "--pool", paramLabel = "NAME",
            description = "the queue name the cluster's GPUs (--kubernetes, default: kubernetes) or the Volcano "
                    + "scheduler's own figures (--volcano, default: volcano) go under")
    String pool;

    @Option(names = "--kube-token-file", paramLabel = "FILE",
            description = "bearer token for the API server, read at each request (default with --kubernetes: the "
                    + "service account's, when present)")
    Path kubeTokenFile;

    @Option(names = "--kube-ca", paramLabel = "PEM",
            description = "CA bundle of the API server (default with --kubernetes: the service account's, when "
                    + "present)")
    Path kubeCa;

    @Option(names = "--node", paramLabel = "NAME",
            description = "the name this producer connects as (default: sched-<host name>)")
    String node;

    @Option(names = "--label", paramLabel = "KEY=VALUE", description = "a label sent in hello (repeatable)")
    Map<String, String> labels = new TreeMap<>();

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "30s",
            description = "how often the scheduler is read (default: ${DEFAULT-VALUE})")
    String interval;

    @Option(names = "--print", description = "print the frames as JSON lines instead of sending them (no --gateway)")
    boolean print;

    @Option(names = "--once", description = "read once, print, and exit; with --print")
    boolean once;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        String misplaced = misplaced();
        if (misplaced != null) {
            return usage(err, misplaced);
        }
        Duration every;
        try {
            every = Duration.ofMillis(Durations.parse(interval));
        } catch (IllegalArgumentException e) {
            return usage(err, "--interval: " + e.getMessage());
        }
        if (every.toMillis() < 1000) {
            return usage(err, "--interval: at least 1s, got " + interval);
        }
        UplinkConfig config = null;
        if (!print) {
            config = uplinkConfig(err);
            if (config == null) {
                return 2;
            }
        }
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(2)
                .setInternalBlockingPoolSize(2));
        SchedSource src = source(vertx);
        if (print) {
            return runPrinting(vertx, src, every, err);
        }
        Hello hello = new Hello(Frame.VERSION, node != null ? node : "sched-" + hostName(),
                UUID.randomUUID().toString(), PRODUCER_NAME, null, null, labels, List.of());
        Uplink uplink = new Uplink(vertx, config, hello);
        SchedProducer producer = new SchedProducer(vertx, src, every, System::currentTimeMillis, uplink::send);
        uplink.start();
        producer.start();
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            ProbeCommand.Stop.await(producer.stop());
            ProbeCommand.Stop.quietly(uplink.close(), vertx);
            done.countDown();
        }, "gpuwatch-shutdown"));
        err.println("sched: " + src.describe() + " every " + every.toMillis() + " ms → " + String.join(", ", gateway)
                + " as " + uplink.node());
        err.flush();
        done.await();
        return 0;
    }

    private int runPrinting(Vertx vertx, SchedSource src, Duration every, PrintWriter err) throws Exception {
        FrameCodec codec = new FrameCodec();
        PrintWriter out = spec.commandLine().getOut();
        Consumer<Frame> printer = f -> {
            synchronized (out) {
                out.println(codec.encode(f));
                out.flush();
            }
        };
        SchedProducer producer = new SchedProducer(vertx, src, every, System::currentTimeMillis, printer);
        if (once) {
            ProbeCommand.Stop.await(src.start());
            producer.readOnce().toCompletionStage().toCompletableFuture().get();
            ProbeCommand.Stop.quietly(src.close(), vertx);
            return 0;
        }
        producer.start();
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            ProbeCommand.Stop.quietly(producer.stop(), vertx);
            done.countDown();
        }, "gpuwatch-shutdown"));
        err.println("sched: " + src.describe() + " every " + every.toMillis() + " ms, printing");
        err.flush();
        done.await();
        return 0;
    }

    private SchedSource source(Vertx vertx) {
        if (source.slurmFiles != null) {
            return SlurmSource.files(vertx, source.slurmFiles);
        }
        if (source.kubernetes != null) {
            Path token = kubeTokenFile != null ? kubeTokenFile : present(SERVICE_ACCOUNT.resolve("token"));
            Path ca = kubeCa != null ? kubeCa : present(SERVICE_ACCOUNT.resolve("ca.crt"));
            return new KubernetesSource(vertx, new KubeApi(vertx, source.kubernetes, token, ca),
                    pool != null ? pool : "kubernetes", 5_000, System::currentTimeMillis);
        }
        if (source.kueue != null) {
            return new ScrapedSource("kueue", new MetricsPage(vertx, source.kueue), new KueueReader());
        }
        if (source.volcano != null) {
            return new ScrapedSource("volcano", new MetricsPage(vertx, source.volcano),
                    new VolcanoReader(pool != null ? pool : "volcano"));
        }
        return SlurmSource.commands(vertx, slurmBin, !noSacct);
    }

    /** An option that does not fit the others, named so the user is not left guessing. */
    private String misplaced() {
        if (print && gateway != null) {
            return "--print prints instead of sending: leave out --gateway";
        }
        if (!print && (gateway == null || gateway.isEmpty())) {
            return "Missing required option: '--gateway=URL' (or --print)";
        }
        if (!print && tokenFile == null) {
            return "Missing required option: '--token-file=FILE'";
        }
        if (once && !print) {
            return "--once applies to --print only";
        }
        if (!source.slurm && (slurmBin != null || noSacct)) {
            return (slurmBin != null ? "--slurm-bin" : "--no-sacct") + " applies to --slurm only";
        }
        if (source.volcano == null && source.kubernetes == null && pool != null) {
            return "--pool applies to --kubernetes and --volcano only";
        }
        if (source.kubernetes == null && (kubeTokenFile != null || kubeCa != null)) {
            return (kubeTokenFile != null ? "--kube-token-file" : "--kube-ca") + " applies to --kubernetes only";
        }
        String[][] urls = {{"--kubernetes", source.kubernetes}, {"--kueue", source.kueue},
                {"--volcano", source.volcano}};
        for (String[] u : urls) {
            if (u[1] != null && !u[1].startsWith("http://") && !u[1].startsWith("https://")) {
                return u[0] + ": an http:// or https:// URL, got " + u[1];
            }
        }
        return null;
    }

    private static Path present(Path p) {
        return Files.isReadable(p) ? p : null;
    }

    private UplinkConfig uplinkConfig(PrintWriter err) {
        return ProbeCommand.uplinkConfig(gateway, tokenFile, trustPem, err);
    }

    private int usage(PrintWriter err, String message) {
        err.println(message);
        err.flush();
        return 2;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
