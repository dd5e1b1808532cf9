package io.gpuwatch.cli;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.state.NodeState;
import io.gpuwatch.gateway.state.TaskState;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code probe --scrape-config} beside every source: alone on a node without GPUs and beside a simulated fleet,
 * each as a process of its own scraping an upstream-shaped vLLM exposition into a gateway.
 */
@ExtendWith(VertxExtension.class)
class ProbeCommandScrapeTest {
    private static final String TOKEN = "scrape-cli-token";
    private static final Path VLLM = Path.of("..", "node-probe", "src", "test", "resources", "scrape", "vllm-1.txt");

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static Gateway gateway(Vertx vertx) throws Exception {
        RuleLoad rules = RuleSet.load(List.of(Path.of("../examples/rules")));
        assertTrue(rules.ok(), rules.diagnostics().toString());
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "*")));
        Gateway g = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000, "http://127.0.0.1"),
                rules.ruleSet(), () -> tokens, List.of(), InstantSource.system());
        await(vertx.deployVerticle(g));
        return g;
    }

    /** A vLLM server's /metrics, from the recorded fixture. */
    private static int vllm(Vertx vertx) throws Exception {
        Buffer body = Buffer.buffer(Files.readString(VLLM));
        HttpServer server = await(vertx.createHttpServer()
                .requestHandler(req -> req.response().putHeader("content-type", "text/plain").end(body))
                .listen(0, "127.0.0.1"));
        return server.actualPort();
    }

    private static Path scrapeConfig(Path dir, int port) throws Exception {
        return Files.writeString(dir.resolve("scrape.yaml"), """
                interval: 1s
                targets:
                  - task: svc-router
                    server: vllm
                    url: http://127.0.0.1:%d/metrics
                """.formatted(port));
    }

    private static TaskState task(Gateway g, String name) {
        return g.fleet().tasks().stream().filter(t -> t.name().equals(name)).findFirst().orElse(null);
    }

    /** Runs {@code probe} as a process until the gateway knows the scraped task, then stops it. */
    private static String runUntilScraped(Gateway g, Path dir, String... args) throws Exception {
        return runUntilScraped(g, dir, List.of(), Map.of(), args);
    }

    /** The same with JVM options and environment variables of its own. */
    private static String runUntilScraped(Gateway g, Path dir, List<String> jvm, Map<String, String> env,
                                          String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(jvm);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "probe",
                "--gateway", "ws://127.0.0.1:" + g.port(), "--token-file", dir.resolve("token").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve("probe.log").toFile());
        pb.environment().putAll(env);
        Process probe = pb.start();
        try {
            GatewayProcess.waitFor(() -> task(g, "svc-router") != null, 20_000, "the scraped task at the gateway");
        } finally {
            probe.destroy();
            assertTrue(probe.waitFor(15, TimeUnit.SECONDS), "the probe stops on SIGTERM");
        }
        return Files.readString(dir.resolve("probe.log"));
    }

    @Test
    void aNodeWithoutGpusScrapesItsInferenceServers(Vertx vertx, @TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("token"), TOKEN + "\n");
        Gateway g = gateway(vertx);
        Path config = scrapeConfig(dir, vllm(vertx));
        Path trace = dir.resolve("router.jsonl");
        String log = runUntilScraped(g, dir, "--scrape-config", config.toString(), "--node", "router-1",
                "--label", "role=router", "--record", trace.toString());
        assertNotNull(task(g, "svc-router"), log);
        NodeState node = g.fleet().node("router-1");
        assertNotNull(node, log);
        assertEquals(0, node.cards().size());
        assertEquals("router", node.label("labels.role"));
        assertTrue(log.contains("node router-1 without GPUs, scraping 1 inference servers"), log);

        List<JsonObject> lines = Files.readAllLines(trace).stream().map(JsonObject::new).toList();
        assertEquals("hello", lines.get(0).getString("type"));
        assertEquals(0, lines.get(0).getJsonArray("cards").size());
        JsonObject app = lines.stream().filter(l -> "app".equals(l.getString("type"))).findFirst().orElseThrow();
        assertEquals("router-1", app.getString("node"), app.encode());
        assertEquals("vllm", app.getString("source"));
        assertEquals(37.0, app.getDouble("batchSize"), "read from the fixture: " + app);
    }

    @Test
    void anNvmlProbeScrapesAndAsksTheKubeletWithoutVertxOrNetty(Vertx vertx, @TempDir Path dir) throws Exception {
        assertTrue(Files.isRegularFile(ProbeCommandNvmlTest.FAKE), "the fake NVML library is built by node-probe's "
                + "tests: " + ProbeCommandNvmlTest.FAKE + " is missing; run `mvn verify` from the repository root");
        Files.writeString(dir.resolve("token"), TOKEN + "\n");
        Path script = Files.writeString(dir.resolve("fake.nvml"), ProbeCommandNvmlTest.SCRIPT);
        Gateway g = gateway(vertx);
        Path config = scrapeConfig(dir, vllm(vertx));
        String log = runUntilScraped(g, dir, List.of("-Xlog:class+load:file=" + dir.resolve("classes.log")),
                Map.of("FAKE_NVML_SCRIPT", script.toString(), "FAKE_NVML_STEP_MS", "500"),
                "--nvml", "--nvml-library", ProbeCommandNvmlTest.FAKE.toString(), "--node", "gpu-1",
                "--proc-root", dir.resolve("no-proc").toString(), "--scrape-config", config.toString(),
                "--kubelet", "http://127.0.0.1:" + vllm(vertx));
        assertNotNull(task(g, "svc-router"), log);
        // outside a pod there is no service-account token: the kubelet is asked for nothing, and says so
        assertTrue(log.contains("kubelet: kubelet pod labels from http://127.0.0.1:"), log);

        List<String> loaded = Files.readAllLines(dir.resolve("classes.log"));
        assertTrue(loaded.stream().anyMatch(l -> l.contains(" io.gpuwatch.probe.http.HttpGet ")), "log read");
        assertTrue(loaded.stream().anyMatch(l -> l.contains(" io.gpuwatch.probe.attribution.KubeletPodLabels ")),
                "the kubelet client started");
        assertEquals(List.of(), loaded.stream().filter(l -> l.matches(".* (io\\.vertx|io\\.netty)\\..*")).toList(),
                "--scrape-config and --kubelet run on the probe's own HTTP client, without Vert.x or Netty");
        assertEquals(List.of(), loaded.stream().filter(l -> l.matches(".* (sun\\.security\\.ssl|javax\\.net\\.ssl)\\..*"))
                .toList(), "plain http:// targets and a ws:// gateway load no TLS");
    }

    @Test
    void aKubeletUrlThatIsNoHttpUrlIsAUsageError(@TempDir Path dir) throws Exception {
        Path token = Files.writeString(dir.resolve("token"), TOKEN + "\n");
        StringWriter err = new StringWriter();
        CommandLine cl = Main.probeCommandLine();
        cl.setErr(new PrintWriter(err));
        int rc = cl.execute("--gateway", "ws://127.0.0.1:1", "--token-file", token.toString(), "--nvml",
                "--nvml-library", dir.resolve("none.so").toString(), "--kubelet", "node-a:10250");
        assertEquals(2, rc, err.toString());
        assertTrue(err.toString().startsWith("--kubelet: expected an http:// or https:// URL with a host"),
                err.toString());
    }

    @Test
    void aSimulatedFleetScrapesBesideItsNodes(Vertx vertx, @TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("token"), TOKEN + "\n");
        Gateway g = gateway(vertx);
        Path config = scrapeConfig(dir, vllm(vertx));
        String log = runUntilScraped(g, dir, "--sim", "../examples/scenarios/quiet.yaml",
                "--scrape-config", config.toString(), "--node", "sim-router");
        assertNotNull(task(g, "svc-router"), log);
        assertNotNull(g.fleet().node("sim-router"), log);
        assertTrue(log.contains("and node sim-router scraping 1 inference servers"), log);
    }

    @Test
    void misplacedScrapeOptionsAreUsageErrors(@TempDir Path dir) throws Exception {
        Path token = Files.writeString(dir.resolve("token"), TOKEN + "\n");
        Path config = scrapeConfig(dir, 9);
        String[] base = {"probe", "--gateway", "ws://127.0.0.1:9", "--token-file", token.toString()};
        assertUsage("choose where readings come from: --nvml, --sim or --replay (or --scrape-config alone, for a "
                + "node without GPUs)", base);
        assertUsage("--scrape-config cannot be combined with --replay", concat(base, "--replay",
                dir.resolve("t.jsonl").toString(), "--scrape-config", config.toString()));
        assertUsage("--node applies to --nvml or --scrape-config only", concat(base, "--sim",
                "../examples/scenarios/quiet.yaml", "--node", "x"));
        assertUsage("--kubelet applies to --nvml only", concat(base, "--scrape-config", config.toString(),
                "--kubelet", "https://h:10250"));
    }

    @Test
    void aBrokenScrapeConfigNamesItsPlaceWithoutAGpu(@TempDir Path dir) throws Exception {
        Path token = Files.writeString(dir.resolve("token"), TOKEN + "\n");
        Path config = Files.writeString(dir.resolve("scrape.yaml"), """
                targets:
                  - {task: ocr, server: triton, url: "http://127.0.0.1:8002/metrics"}
                """);
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));
        int rc = cl.execute("probe", "--gateway", "ws://127.0.0.1:9", "--token-file", token.toString(),
                "--scrape-config", config.toString());
        assertEquals(1, rc, err.toString());
        assertTrue(err.toString().contains(config + ":2:5: triton serves several models"), err.toString());
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = new String[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static void assertUsage(String expected, String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));
        int rc = cl.execute(args);
        assertEquals(2, rc, err.toString());
        assertTrue(err.toString().contains(expected), err.toString());
    }
}
