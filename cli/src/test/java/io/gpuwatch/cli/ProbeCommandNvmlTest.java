package io.gpuwatch.cli;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.receiver.webhook.WebhookConfig;
import io.gpuwatch.notify.receiver.webhook.WebhookReceiver;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code gpuwatch probe --nvml} as an operator runs it: a separate process loading the fake libnvidia-ml.so.1
 * (scripted through its environment) pushes to a gateway that pages through a webhook; its {@code --record}
 * trace then replays through {@code probe --replay} into a second gateway, which pages the same way.
 */
@ExtendWith(VertxExtension.class)
class ProbeCommandNvmlTest {
    private static final String TOKEN = "nvml-cli-token";
    static final Path FAKE = Path.of("..", "node-probe", "target", "fake-nvml", "libnvidia-ml.so.1")
            .toAbsolutePath().normalize();
    static final String SCRIPT = """
            driver 580.95.05
            nvml 13.580.95.05
            cards 2
            card 0 uuid GPU-cli-0000-4e2a-9c1d-7b3f05a1c001
            card 0 name NVIDIA H100 80GB HBM3
            card 0 pci 00000000:1B:00.0
            card 0 mem.total 85520809984
            card 0 mem.used 61203283968
            card 0 power.limit 700000
            card 0 util.gpu 97
            card 0 util.mem 41
            card 0 temp 71
            card 0 power 612400
            card 0 clock.sm 1755
            card 0 reasons 0x4
            card 0 proc 4242 60129542144
            card 0 events 0x1B
            card 1 uuid GPU-cli-0001-81d7-33ab-e40c99f2b002
            card 1 name NVIDIA H200
            card 1 pci 00000000:43:00.0
            card 1 mem.total 150754820096
            card 1 mem.used 1611661312
            card 1 util.gpu 12
            card 1 util.mem 3
            card 1 temp 34
            card 1 events 0x1B
            event 3 1 xid 79
            """;

    private record Arrival(JsonObject body) {
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static void waitFor(BooleanSupplier condition, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!condition.getAsBoolean() && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
    }

    /** A gateway with the example rules, paging to a local webhook that records what it gets. */
    private static Gateway gateway(Vertx vertx, List<Arrival> arrivals, WebClient web) throws Exception {
        HttpServer hook = await(vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
            arrivals.add(new Arrival(b.toJsonObject()));
            req.response().setStatusCode(200).end();
        })).listen(0, "127.0.0.1"));
        RuleLoad rules = RuleSet.load(List.of(Path.of("../examples/rules")));
        assertTrue(rules.ok(), rules.diagnostics().toString());
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "*")));
        List<Receiver> receivers = List.of(WebhookReceiver.create(vertx, web, "webhook",
                WebhookConfig.of("http://127.0.0.1:" + hook.actualPort() + "/hook"), "http://127.0.0.1"));
        Gateway g = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000, "http://127.0.0.1"),
                rules.ruleSet(), () -> tokens, receivers, InstantSource.system());
        await(vertx.deployVerticle(g));
        return g;
    }

    private static List<JsonObject> firing(List<Arrival> arrivals) {
        List<JsonObject> out = new ArrayList<>();
        for (Arrival a : arrivals) {
            if ("firing".equals(a.body().getString("status"))) {
                a.body().getJsonArray("alerts").forEach(o -> out.add(((JsonObject) o).getJsonObject("labels")));
            }
        }
        return out;
    }

    /** The trace's lines as JSON objects; the file is gzipped because its name ends in .gz. */
    private static List<JsonObject> traceLines(Path trace) throws Exception {
        List<JsonObject> out = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                new GZIPInputStream(Files.newInputStream(trace)), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                out.add(new JsonObject(line));
            }
        }
        return out;
    }

    @Test
    void aProbeOnTheFakeDriverPagesAnXid79AndItsRecordingReplaysTheSamePage(Vertx vertx, @TempDir Path dir)
            throws Exception {
        assertTrue(Files.isRegularFile(FAKE), "the fake NVML library is built by node-probe's tests: " + FAKE
                + " is missing; run `mvn verify` from the repository root");
        Path script = Files.writeString(dir.resolve("fake.nvml"), SCRIPT);
        Path token = Files.writeString(dir.resolve("token"), TOKEN + "\n");
        Path trace = dir.resolve("node-a.jsonl.gz");
        WebClient web = WebClient.create(vertx);
        List<Arrival> arrivals = new CopyOnWriteArrayList<>();
        Gateway live = gateway(vertx, arrivals, web);

        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xlog:class+load:file=" + dir.resolve("classes.log"),
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "probe",
                "--gateway", "ws://127.0.0.1:" + live.port(), "--token-file", token.toString(),
                "--nvml", "--nvml-library", FAKE.toString(), "--node", "node-a", "--label", "cluster=test",
                "--proc-root", dir.resolve("no-proc").toString(), "--record", trace.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("probe.log").toFile());
        pb.environment().put("FAKE_NVML_SCRIPT", script.toString());
        pb.environment().put("FAKE_NVML_STEP_MS", "500");
        Process probe = pb.start();
        try {
            waitFor(() -> !firing(arrivals).isEmpty(), 20_000);
            Thread.sleep(1500);
        } finally {
            probe.destroy();
            assertTrue(probe.waitFor(15, TimeUnit.SECONDS), "the probe stops on SIGTERM");
        }
        String log = Files.readString(dir.resolve("probe.log"));
        List<JsonObject> pages = firing(arrivals);
        assertEquals(1, pages.size(), "one page for one XID 79: " + pages + "\n" + log);
        assertEquals("xid-fallen-off-bus", pages.get(0).getString("alertname"));
        assertEquals("node-a", pages.get(0).getString("node"), "one page for the node of the lost card");
        assertEquals(2, live.fleet().node("node-a").cards().size(), log);
        assertEquals("test", live.fleet().node("node-a").label("labels.cluster"));

        // the NVML probe's uplink is a WebSocket client on the JDK's sockets, and picocli sees the probe command alone
        List<String> loaded = Files.readAllLines(dir.resolve("classes.log"));
        assertTrue(loaded.stream().anyMatch(l -> l.contains(" io.gpuwatch.probe.uplink.SocketTransport ")), "log read");
        assertEquals(List.of(), loaded.stream().filter(l -> l.matches(".* (java\\.net\\.http|jdk\\.internal\\.net\\.http|sun\\.security\\.ssl|javax\\.net\\.ssl)\\..*"))
                .toList(), "a ws:// probe loads neither the JDK's HTTP client nor TLS");
        assertEquals(List.of(), loaded.stream().filter(l -> l.matches(".* (io\\.vertx|io\\.netty|io\\.gpuwatch\\.gateway)\\..*"))
                .toList(), "a probe without --kubelet or --scrape-config loads no Vert.x, Netty or gateway class");

        List<JsonObject> lines = traceLines(trace);
        JsonObject hello = lines.get(0);
        assertEquals("hello", hello.getString("type"));
        assertEquals("node-a", hello.getString("node"));
        JsonObject sample = lines.stream().filter(l -> "sample".equals(l.getString("type"))).findFirst().orElseThrow();
        JsonObject card0 = sample.getJsonArray("cards").getJsonObject(0);
        assertEquals(97.0, card0.getDouble("gpuUtil"), "decoded through the real binding: " + card0);
        assertEquals(71.0, card0.getDouble("tempC"));
        assertEquals(612.4, card0.getDouble("powerW"), 1e-9);
        assertEquals(61203283968.0, card0.getDouble("memUsedBytes"));
        assertTrue(lines.stream().anyMatch(l -> "event".equals(l.getString("type")) && l.getInteger("xid", -1) == 79),
                "the XID is in the recording");

        List<Arrival> replayed = new CopyOnWriteArrayList<>();
        Gateway second = gateway(vertx, replayed, web);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int rc = cl.execute("probe", "--gateway", "ws://127.0.0.1:" + second.port(), "--token-file", token.toString(),
                "--replay", trace.toString(), "--speed", "max");
        assertEquals(0, rc, err.toString());
        waitFor(() -> !firing(replayed).isEmpty(), 10_000);
        List<JsonObject> again = firing(replayed);
        assertEquals(1, again.size(), "the replay pages the same XID once: " + again);
        assertEquals("xid-fallen-off-bus", again.get(0).getString("alertname"));
        assertEquals("node-a", again.get(0).getString("node"));
    }

    @Test
    void optionsOfAnotherSourceAreRefusedByName(@TempDir Path dir) throws Exception {
        Path token = Files.writeString(dir.resolve("token"), TOKEN);
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));
        int rc = cl.execute("probe", "--gateway", "ws://127.0.0.1:1", "--token-file", token.toString(),
                "--sim", "../examples/scenarios/quiet.yaml", "--kubelet", "https://node-a:10250");
        assertEquals(2, rc);
        assertTrue(err.toString().contains("--kubelet applies to --nvml only"), err.toString());

        StringWriter err2 = new StringWriter();
        CommandLine both = Main.commandLine();
        both.setErr(new PrintWriter(err2));
        assertEquals(2, both.execute("probe", "--gateway", "ws://127.0.0.1:1", "--token-file", token.toString(),
                "--nvml", "--sim", "../examples/scenarios/quiet.yaml"));
        assertTrue(err2.toString().contains("mutually exclusive"), err2.toString());
    }

    @Test
    void aMissingNvmlLibraryIsReportedAndTheProbeExits(@TempDir Path dir) throws Exception {
        Path token = Files.writeString(dir.resolve("token"), TOKEN);
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));
        int rc = cl.execute("probe", "--gateway", "ws://127.0.0.1:1", "--token-file", token.toString(),
                "--nvml", "--nvml-library", dir.resolve("libnvidia-ml.so.1").toString(), "--node", "n");
        assertEquals(1, rc);
        assertTrue(err.toString().contains("--nvml: cannot open NVML from"), err.toString());
    }
}
