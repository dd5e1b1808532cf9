package io.gpuwatch.cli;

import io.gpuwatch.cli.alerting.AlertingLoad;
import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.GatewayStats;
import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.http.ApiAccess;
import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.digest.DigestChannel;
import io.gpuwatch.gateway.digest.DigestSchedule;
import io.gpuwatch.gateway.digest.Digests;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.notify.receiver.console.ConsoleReportTarget;
import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.probe.sim.SimRunner;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Vertx;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** {@code gpuwatch demo}: an embedded gateway and a simulated fleet playing scripted incidents. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Start an embedded gateway with the example rules and a simulated fleet that plays a "
                + "scenario of incidents over real WebSockets on loopback. Each incident prints one notification "
                + "and, once it is over, one resolution; quiet cards print nothing.")
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--scenario", paramLabel = "FILE", description = "scenario to play (default: examples/scenarios/demo.yaml)")
    Path scenario;

    @Option(names = "--rules", paramLabel = "PATH", split = ",", description = "rule files or directories (default: examples/rules)")
    List<Path> rules;

    @Option(names = "--port", defaultValue = "0", description = "gateway port on 127.0.0.1 (default: any free port)")
    int port;

    /** Long enough for the example pack's longest hysteresis after the demo script's last incident. */
    static final Duration DEFAULT_LINGER = Duration.ofSeconds(150);

    @Option(names = "--linger", defaultValue = "150s", paramLabel = "DURATION",
            description = "after the scenario ends, wait up to this long for open alerts to resolve (default: ${DEFAULT-VALUE})")
    String linger;

    @Mixin
    Receivers receivers;

    @Mixin
    NotifyOptions notify;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        Duration lingerFor;
        try {
            lingerFor = Duration.parse("PT" + linger.toUpperCase());
        } catch (Exception e) {
            err.println("--linger: expected a duration like 90s or 2m, got " + linger);
            err.flush();
            return 2;
        }
        RuleSet ruleSet = Loading.rules(rules, err);
        if (ruleSet == null) {
            return 1;
        }
        Scenario sc = ProbeCommand.loadScenario(scenario == null ? Home.resolve("examples/scenarios/demo.yaml") : scenario, err);
        if (sc == null) {
            return 1;
        }
        String token = TokenFile.newToken();
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(token, "*")));
        AlertingLoad alerting = receivers.alertingFile(err);
        if (alerting != null && !alerting.ok()) {
            return 1;
        }
        if (!notify.check(err)) {
            return 2;
        }
        // links must name the port the gateway will really listen on, so "any free port" is picked here
        int listenPort = port != 0 ? port : freePort();
        Vertx vertx = Vertx.vertx();
        String external = notify.externalUrl("http://127.0.0.1:" + listenPort);
        Receivers.Delivery out;
        try {
            out = receivers.build(vertx, external, alerting);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.flush();
            vertx.close();
            return 2;
        }
        // the console needs a login: one token for the person on call, one to look around with
        String operatorToken = TokenFile.newToken();
        String viewerToken = TokenFile.newToken();
        ApiTokens apiTokens = ApiTokens.of(List.of(ApiTokens.entry(operatorToken, Role.OPERATOR, "oncall"),
                ApiTokens.entry(viewerToken, Role.VIEWER, "viewer")));
        Gateway gateway = new Gateway(notify.apply(new GatewayConfig("127.0.0.1", listenPort, IngestConfig.DEFAULTS,
                1000, external)),
                ruleSet, RuleFiles.none(), () -> tokens, out.receivers(), out.routing(), InstantSource.system())
                .access(ApiAccess.open().withTokens(() -> apiTokens));
        if (!receivers.noConsole) {
            // the closing summary: one digest of the whole run, printed after the measurements
            gateway.digests(new Digests(List.of(new DigestChannel("console", new DigestSchedule.Every(
                    Duration.ofDays(1), ZoneOffset.UTC), new ConsoleReportTarget("console", System.out))),
                    InstantSource.system(), null, Pricing.NONE));
        }
        String deployment = vertx.deployVerticle(gateway).toCompletionStage().toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
        int bound = gateway.port();
        // the fleet keeps sampling after the script ends, so open alerts can resolve on live data
        // instead of every node turning silent at once
        Scenario endless = sc.with(null, sc.seed());
        SimRunner runner = new SimRunner(vertx, new SimFleet(endless, System.currentTimeMillis()),
                node -> UplinkConfig.of("127.0.0.1", bound, token), System::currentTimeMillis);

        AtomicBoolean stopping = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            if (stopping.compareAndSet(false, true)) {
                stop(runner, vertx, deployment);
            }
            done.countDown();
        }, "gpuwatch-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        long started = System.currentTimeMillis();
        err.printf("gpuwatch demo: gateway on http://127.0.0.1:%d (/api/v1/alerts, /metrics) with %d rules; "
                        + "%d nodes × %d cards playing '%s'%s%n", bound, ruleSet.rules().size(), sc.nodes(),
                sc.cardsPerNode(), sc.name(), sc.duration() == null ? "" : " for " + sc.duration().toSeconds() + " s");
        err.printf("gpuwatch demo: console at http://127.0.0.1:%d/ ; log in with the operator token %s "
                + "(a viewer token, which may only look: %s); the API takes either as "
                + "'Authorization: Bearer <token>'%n", bound, operatorToken, viewerToken);
        err.flush();
        runner.start();
        long scriptMs = sc.duration() == null ? 0 : sc.duration().toMillis();
        vertx.setTimer(Math.max(1, scriptMs), t -> {
            err.println("gpuwatch demo: the script is over; waiting up to " + lingerFor.toSeconds()
                    + " s for open alerts to resolve (Ctrl-C to stop now)");
            err.flush();
            long deadline = System.currentTimeMillis() + lingerFor.toMillis();
            vertx.setPeriodic(1000, id -> gateway.stats().onSuccess(s -> {
                if (s.firing() == 0 || System.currentTimeMillis() >= deadline) {
                    vertx.cancelTimer(id);
                    done.countDown();
                }
            }));
        });
        done.await();
        if (stopping.compareAndSet(false, true)) {
            GatewayStats s = gateway.stats().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            report(err, s, System.currentTimeMillis() - started);
            if (gateway.digests().isPresent()) {
                gateway.digests().get().sendNow("console").toCompletionStage().toCompletableFuture()
                        .get(10, TimeUnit.SECONDS);
            }
            stop(runner, vertx, deployment);
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        return 0;
    }

    /** The fleet first, so no frame arrives while the gateway sends what is pending; then the gateway. */
    private void stop(SimRunner runner, Vertx vertx, String deployment) {
        try {
            runner.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // the gateway refuses frames while it stops anyway
        }
        notify.stop(vertx, deployment);
    }

    /** A port free on loopback now; the gateway binds it a moment later. */
    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void report(PrintWriter err, GatewayStats s, long elapsedMs) {
        double secs = Math.max(1, elapsedMs / 1000.0);
        err.printf("%ngpuwatch demo: %.0f s, %d nodes, %d cards%n", secs, s.nodes(), s.cards());
        err.printf("  ingest: %d frames (%.1f/s), %d card readings (%.1f/s), %d events, %d duplicates, %d bad, %d shed%n",
                s.frames(), s.frames() / secs, s.cardReadings(), s.cardReadings() / secs, s.events(), s.duplicates(),
                s.badFrames(), s.shedSamples());
        err.printf("  windows: %d bytes in all, %d bytes per card%n", s.windowBytes(),
                s.cards() == 0 ? 0 : s.windowBytes() / s.cards());
        err.printf("  rules: %d scope evaluations; alerts: %d ended, %d still firing; %d notifications delivered, %d failed%n",
                s.evaluations(), s.ended(), s.firing(), s.notificationsSent(), s.notificationsFailed());
        err.flush();
    }
}
