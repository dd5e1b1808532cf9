package io.gpuwatch.cli;

import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.scenario.ScenarioError;
import io.gpuwatch.probe.scenario.ScenarioLoad;
import io.gpuwatch.probe.scenario.ScenarioLoader;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.probe.sim.SimRunner;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.vertx.core.Vertx;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** {@code gpuwatch probe}: pushes readings and events of (simulated) nodes to a gateway. */
@Command(name = "probe", mixinStandardHelpOptions = true,
        description = "Run a probe against a gateway. With --sim, every node of the scenario gets its own "
                + "WebSocket, buffers while the gateway is away and reconnects with back-off.")
final class ProbeCommand implements Callable<Integer> {
    @Option(names = "--gateway", required = true, paramLabel = "URL", description = "ws://HOST:PORT or wss://HOST:PORT")
    URI gateway;

    @Option(names = "--token-file", required = true, paramLabel = "FILE", description = "file holding this probe's bearer token")
    Path tokenFile;

    @Option(names = "--sim", required = true, paramLabel = "SCENARIO",
            description = "simulate the fleet of this scenario file (see examples/scenarios/README.md)")
    Path scenario;

    @Option(names = "--trust", paramLabel = "PEM", description = "CA certificate to verify a wss:// gateway with")
    String trustPem;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        String scheme = gateway.getScheme();
        if (!"ws".equals(scheme) && !"wss".equals(scheme) || gateway.getHost() == null) {
            err.println("--gateway: expected ws://HOST:PORT or wss://HOST:PORT, got " + gateway);
            err.flush();
            return 2;
        }
        boolean tls = "wss".equals(scheme);
        int port = gateway.getPort() > 0 ? gateway.getPort() : (tls ? 443 : 80);
        String token;
        try {
            token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            err.println("--token-file: cannot read " + tokenFile + ": " + e.getMessage());
            err.flush();
            return 2;
        }
        if (token.isEmpty()) {
            err.println("--token-file: " + tokenFile + " is empty");
            err.flush();
            return 2;
        }
        Scenario sc = loadScenario(scenario, err);
        if (sc == null) {
            return 1;
        }
        UplinkConfig base = UplinkConfig.of(gateway.getHost(), port, token);
        UplinkConfig config = tls ? base.withTls(trustPem) : base;
        Vertx vertx = Vertx.vertx();
        SimRunner runner = new SimRunner(vertx, new SimFleet(sc, System.currentTimeMillis()), node -> config,
                System::currentTimeMillis);
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Stop.quietly(runner.close(), vertx);
            done.countDown();
        }, "gpuwatch-shutdown"));
        runner.start();
        err.println("probe: " + sc.nodes() + " simulated nodes × " + sc.cardsPerNode() + " cards → " + gateway);
        err.flush();
        runner.finished().onComplete(v -> done.countDown());
        done.await();
        Stop.quietly(runner.close(), vertx);
        return 0;
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

    /** Stops a runner and its Vert.x within a bound, whatever state they are in. */
    static final class Stop {
        private Stop() {
        }

        static void quietly(io.vertx.core.Future<Void> closing, Vertx vertx) {
            try {
                closing.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // closing is best effort; Vert.x below is closed regardless
            }
            try {
                vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // the process is ending
            }
        }
    }
}
