package io.gpuwatch.cli.chaos;

import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.probe.sim.SimRunner;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One run of the bench: gateways in their own JVMs on a fresh data dir each, the scenario's fleet simulated in this
 * JVM on the wall clock (its readings depend only on the seed and the time since the start, so every run plays the
 * same), the bench's webhook taking every notification, and the trial's kills carried out on schedule.
 */
final class ChaosRun {
    /** How long a held answer keeps a send in flight. */
    private static final long HOLD_MS = 5000;
    /** A mid-send kill lands this long after the held notification arrived, while its sender awaits the answer. */
    private static final long IN_FLIGHT_MS = 300;
    private static final Duration READY = Duration.ofSeconds(120);
    /** A trial goes on at least this long after its last restart, so what that gateway sends then is seen. */
    private static final long AFTER_LAST_RESTART_MS = 60_000;
    /** What a cluster member logs once it sees all three. */
    private static final String ALL_MEMBERS = "cluster members now 3";

    /**
     * What every run of one bench shares.
     *
     * @param runMs how long each run samples, from the probes' start; the scenario's script and then the settle
     */
    record Setup(Scenario scenario, List<Path> rules, long runMs, boolean cluster, Path workDir) {
        int gateways() {
            return cluster ? 3 : 1;
        }
    }

    /** What happened to one kill: when the gateway died and how long until it took probes again. */
    record KillLog(Kill kill, long killedAtMs, long downMs, String note) {
    }

    /** A run's notifications, its kills and the notifications the outage refused. */
    record Outcome(String name, List<Delivery> received, List<KillLog> kills, long refused) {
    }

    private final Setup setup;
    private final String name;
    private final List<Kill> plan;
    private final PrintWriter log;

    ChaosRun(Setup setup, String name, List<Kill> plan, PrintWriter log) {
        this.setup = setup;
        this.name = name;
        this.plan = List.copyOf(plan);
        this.log = log;
    }

    Outcome play() throws Exception {
        Path dir = Files.createDirectories(setup.workDir().resolve(name));
        String token = TokenFile.newToken();
        Path tokens = Files.writeString(dir.resolve("tokens.txt"), TokenFile.line(token, "*") + "\n",
                StandardCharsets.UTF_8);
        Vertx vertx = Vertx.vertx();
        List<GatewayProcess> gateways = new ArrayList<>();
        SimRunner runner = null;
        WebhookSink sink = null;
        try {
            sink = new WebhookSink(vertx);
            int sinkPort = await(sink.listen());
            Path alerting = Files.writeString(dir.resolve("alerting.yml"), alerting(sinkPort), StandardCharsets.UTF_8);
            int n = setup.gateways();
            int[] httpPorts = freePorts(n);
            int[] clusterPorts = setup.cluster() ? freePorts(n) : new int[0];
            for (int g = 0; g < n; g++) {
                gateways.add(new GatewayProcess(gatewayArgs(dir, g, httpPorts, clusterPorts, tokens, alerting),
                        httpPorts[g], dir.resolve("gateway-" + g + ".log")));
            }
            // a cluster's first member forms it, then the others join: quicker and surer than forming it at once
            gateways.get(0).start();
            gateways.get(0).awaitReady(READY);
            for (GatewayProcess g : gateways.subList(1, n)) {
                g.start();
            }
            for (GatewayProcess g : gateways) {
                g.awaitReady(READY);
                if (setup.cluster()) {
                    g.awaitLog(ALL_MEMBERS, 0, READY);
                }
            }
            long start = System.currentTimeMillis();
            sink.startAt(start);
            Scenario endless = setup.scenario().with(null, setup.scenario().seed());
            SimFleet fleet = new SimFleet(endless, start);
            List<String> producers = fleet.producers();
            runner = new SimRunner(vertx, fleet, node -> uplink(producers.indexOf(node), httpPorts, token),
                    System::currentTimeMillis);
            await(runner.start());
            say("%s: %d gateway(s) on %s, probes started", name, n, ports(httpPorts));
            List<KillLog> kills = new ArrayList<>();
            for (Kill k : plan) {
                kills.add(carryOut(k, start, gateways.get(k.gateway()), sink));
            }
            sleepUntil(Math.max(start + setup.runMs(), settledAt(start, kills)));
            List<Delivery> received = sink.received();
            Files.write(dir.resolve("notifications.jsonl"), received.stream().map(ChaosRun::line).toList(),
                    StandardCharsets.UTF_8);
            return new Outcome(name, received, kills, sink.refused());
        } finally {
            if (runner != null) {
                runner.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            for (GatewayProcess g : gateways) {
                g.stop();
            }
            if (sink != null) {
                sink.close();
            }
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private KillLog carryOut(Kill k, long start, GatewayProcess gateway, WebhookSink sink) throws Exception {
        sleepUntil(start + k.atMs());
        String note = "";
        switch (k.kind()) {
            case RANDOM -> { }
            case OUTAGE -> {
                sink.outageUntil(start + k.atMs() + k.outageMs());
                sleepUntil(start + k.atMs() + k.killAfterMs());
            }
            case MID_SEND -> {
                Future<Void> arrived = sink.holdNext(HOLD_MS);
                long wait = Math.min(Kill.SEND_WAIT_MS, start + setup.runMs() - 10_000 - System.currentTimeMillis());
                try {
                    arrived.toCompletionStage().toCompletableFuture().get(Math.max(1, wait), TimeUnit.MILLISECONDS);
                    Thread.sleep(IN_FLIGHT_MS);
                    note = "a send in flight";
                } catch (TimeoutException none) {
                    sink.cancelHold();
                    note = "no send came in " + wait / 1000 + " s";
                }
            }
        }
        long killedAt = System.currentTimeMillis();
        gateway.kill();
        long logged = gateway.logLength();
        gateway.start();
        gateway.awaitReady(READY);
        if (setup.cluster()) {
            gateway.awaitLog(ALL_MEMBERS, logged, READY);
        }
        long down = System.currentTimeMillis() - killedAt;
        say("%s: killed gateway %d (%s) at %.1f s, taking probes again %.1f s later%s", name, k.gateway(),
                k.kind().label, (killedAt - start) / 1000.0, down / 1000.0, note.isEmpty() ? "" : "; " + note);
        return new KillLog(k, killedAt - start, down, note);
    }

    /**
     * When the trial's last kill has played out: a minute after the last restart, and after an outage as long
     * again as the outage was (its refused sends retry with a back-off doubling from 1 s, so the next try after
     * an outage of D comes within about D of its end). A run ending before that would count what the gateway is
     * about to send as lost rather than late.
     */
    private static long settledAt(long start, List<KillLog> kills) {
        long at = start;
        for (KillLog k : kills) {
            at = Math.max(at, start + k.killedAtMs() + k.downMs() + AFTER_LAST_RESTART_MS);
            if (k.kill().kind() == Kill.Kind.OUTAGE) {
                long over = start + k.kill().atMs() + k.kill().outageMs();
                at = Math.max(at, over + k.kill().outageMs() * 5 / 4 + 5000);
            }
        }
        return at;
    }

    private List<String> gatewayArgs(Path dir, int g, int[] httpPorts, int[] clusterPorts, Path tokens, Path alerting)
            throws IOException {
        Path data = Files.createDirectories(dir.resolve("data-" + g));
        List<String> a = new ArrayList<>(List.of("--listen", "127.0.0.1:" + httpPorts[g], "--tokens", tokens.toString(),
                "--data-dir", data.toString(), "--alerting", alerting.toString(), "--no-console",
                "--reload-interval", "0"));
        for (Path r : setup.rules()) {
            a.add("--rules");
            a.add(r.toString());
        }
        if (setup.cluster()) {
            List<String> members = new ArrayList<>();
            for (int p : clusterPorts) {
                members.add("127.0.0.1:" + p);
            }
            a.addAll(List.of("--cluster", "--cluster-members", String.join(",", members),
                    "--cluster-port", Integer.toString(clusterPorts[g]), "--cluster-host", "127.0.0.1"));
        }
        return a;
    }

    /** Every node knows every gateway, starting at a different one, so a cluster's nodes spread over it. */
    private static UplinkConfig uplink(int node, int[] httpPorts, String token) {
        List<URI> urls = new ArrayList<>();
        for (int i = 0; i < httpPorts.length; i++) {
            urls.add(URI.create("ws://127.0.0.1:" + httpPorts[(node + i) % httpPorts.length] + UplinkConfig.PROBE_PATH));
        }
        return UplinkConfig.of(urls, token, null);
    }

    /**
     * Every notification to the bench's webhook, each alert in its own group, sent as soon as it changes: the bench
     * measures what the gateway decides and delivers, which batching would blur.
     */
    private static String alerting(int sinkPort) {
        return """
                receivers:
                  - name: chaos
                    type: webhook
                    url: http://127.0.0.1:%d/chaos
                route:
                  receiver: chaos
                  group_by: ['...']
                  group_wait: 0s
                  group_interval: 1s
                  repeat_interval: 24h
                """.formatted(sinkPort);
    }

    /** A notification as a line of the run's notifications.jsonl, kept beside its gateway logs. */
    private static String line(Delivery d) {
        return new JsonObject().put("atMs", d.atMs()).put("alertname", d.alertname()).put("node", d.node())
                .put("status", d.status()).put("fingerprint", d.fingerprint()).put("key", d.key())
                .put("startsAt", d.startsAt()).put("endsAt", d.endsAt()).encode();
    }

    private void say(String format, Object... args) {
        synchronized (log) {
            log.printf(Locale.ROOT, format + "%n", args);
            log.flush();
        }
    }

    /**
     * Ports free now below the ephemeral range (32768 up on Linux): a port from there, free when picked, may be
     * taken by an outgoing connection or a cluster member before the gateway that is to listen on it starts (or
     * restarts).
     */
    private static int[] freePorts(int n) throws IOException {
        int[] ports = new int[n];
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                ServerSocket s = bindBelowEphemeral();
                held.add(s);
                ports[i] = s.getLocalPort();
            }
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
        return ports;
    }

    private static ServerSocket bindBelowEphemeral() throws IOException {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = 20_000 + ThreadLocalRandom.current().nextInt(12_000);
            try {
                return new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IOException("no free port between 20000 and 32000 after 200 tries");
    }

    private static String ports(int[] ports) {
        List<String> s = new ArrayList<>();
        for (int p : ports) {
            s.add(Integer.toString(p));
        }
        return String.join(", ", s);
    }

    private static void sleepUntil(long epochMs) throws InterruptedException {
        long left;
        while ((left = epochMs - System.currentTimeMillis()) > 0) {
            Thread.sleep(Math.min(left, 1000));
        }
    }

    private static <T> T await(Future<T> f) throws InterruptedException, ExecutionException, TimeoutException {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
}
