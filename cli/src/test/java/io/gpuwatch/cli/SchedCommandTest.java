package io.gpuwatch.cli;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
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
import java.nio.file.attribute.PosixFilePermissions;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code gpuwatch sched}: printing a reading, sending one to a gateway as a process of its own, usage errors. */
@ExtendWith(VertxExtension.class)
class SchedCommandTest {
    private static final String TOKEN = "sched-cli-token";
    private static final Path SLURM = Path.of("..", "node-probe", "src", "test", "resources", "sched", "slurm")
            .toAbsolutePath().normalize();

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static String[] run(StringWriter out, StringWriter err, int expectRc, String... args) {
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        assertEquals(expectRc, cl.execute(args), err.toString());
        return out.toString().split("\n");
    }

    @Test
    void printsOneReadingOfSavedSlurmOutput() {
        StringWriter out = new StringWriter();
        String[] lines = run(out, new StringWriter(), 0, "sched", "--slurm-files", SLURM.toString(), "--print",
                "--once");
        assertEquals(3, lines.length, out.toString());
        JsonObject gpu = new JsonObject(lines[1]);
        assertEquals("sched", gpu.getString("type"));
        assertEquals("gpu", gpu.getString("queue"));
        assertEquals(5, gpu.getInteger("fragmentedCards"));
        // six that wait or run, and two that ended (1008 still in squeue, 992 only in sacct) with their outcome
        assertEquals(8, gpu.getJsonArray("tasks").size());
        assertEquals("succeeded", gpu.getJsonArray("tasks").getJsonObject(7).getString("outcome"));
        JsonObject drained = new JsonObject(lines[2]);
        assertEquals("node_drained", drained.getString("kind"));
    }

    @Test
    void printsAScrapeOfVolcano(Vertx vertx) throws Exception {
        String page = Files.readString(SLURM.resolveSibling("volcano").resolve("metrics-1.txt"));
        HttpServer server = await(vertx.createHttpServer().requestHandler(req -> req.response().end(page))
                .listen(0, "127.0.0.1"));
        StringWriter out = new StringWriter();
        String[] lines = run(out, new StringWriter(), 0, "sched", "--volcano", "http://127.0.0.1:"
                + server.actualPort() + "/metrics", "--pool", "volcano-east", "--print", "--once");
        assertEquals(List.of("volcano-east", "llm", "search"), java.util.Arrays.stream(lines)
                .map(l -> new JsonObject(l).getString("queue")).toList());
    }

    @Test
    void sendsSlurmQueuesToAGateway(Vertx vertx, @TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("token"), TOKEN + "\n");
        Path bin = Files.createDirectory(dir.resolve("bin"));
        for (String[] c : new String[][]{{"squeue", "squeue.json"}, {"sacct", "sacct.json"},
                {"scontrol", "scontrol-nodes.json"}}) {
            Path p = Files.writeString(bin.resolve(c[0]), "#!/bin/sh\ncat " + SLURM.resolve(c[1]) + "\n");
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        RuleLoad rules = RuleSet.load(List.of(Path.of("../examples/rules")));
        assertTrue(rules.ok(), rules.diagnostics().toString());
        TokenFile tokens = TokenFile.of(List.of(TokenFile.entry(TOKEN, "*")));
        Gateway g = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 1000, "http://127.0.0.1"),
                rules.ruleSet(), () -> tokens, List.of(), InstantSource.system());
        await(vertx.deployVerticle(g));

        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "sched", "--slurm",
                "--slurm-bin", bin.toString(), "--gateway", "ws://127.0.0.1:" + g.port(), "--token-file",
                dir.resolve("token").toString(), "--node", "slurm-ctl"));
        Process sched = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve("sched.log").toFile()).start();
        try {
            GatewayProcess.waitFor(() -> g.fleet().queue("gpu") != null && g.fleet().queue("debug") != null,
                    20_000, "the Slurm partitions at the gateway");
        } finally {
            sched.destroy();
            assertTrue(sched.waitFor(15, TimeUnit.SECONDS), "sched stops on SIGTERM");
        }
        String log = Files.readString(dir.resolve("sched.log"));
        assertNotNull(g.fleet().node("slurm-ctl"), log);
        assertTrue(g.fleet().tasks().stream().anyMatch(t -> t.name().equals("slurm-1004")), log);
        assertTrue(log.contains("sched: slurm (squeue, sacct, scontrol in " + bin + ") every 30000 ms"), log);
    }

    @Test
    void misplacedOptionsAreUsageErrors() {
        assertUsage("Missing required option: '--gateway=URL' (or --print)", "sched", "--slurm");
        assertUsage("--print prints instead of sending: leave out --gateway", "sched", "--slurm", "--print",
                "--gateway", "ws://127.0.0.1:9");
        assertUsage("--once applies to --print only", "sched", "--slurm", "--gateway", "ws://h:1", "--token-file",
                "t", "--once");
        assertUsage("--pool applies to --kubernetes and --volcano only", "sched", "--kueue", "http://k:8080/metrics",
                "--print",
                "--pool", "x");
        assertUsage("--kueue: an http:// or https:// URL, got k:8080", "sched", "--kueue", "k:8080", "--print");
        assertUsage("--kube-ca applies to --kubernetes only", "sched", "--slurm", "--print", "--kube-ca", "ca.pem");
        assertUsage("--kubernetes: an http:// or https:// URL, got kubernetes.default.svc", "sched", "--kubernetes",
                "kubernetes.default.svc", "--print");
        assertUsage("--slurm-bin applies to --slurm only", "sched", "--slurm-files", "d", "--print", "--slurm-bin",
                "/opt");
    }

    private static void assertUsage(String message, String... args) {
        StringWriter err = new StringWriter();
        run(new StringWriter(), err, 2, args);
        assertTrue(err.toString().contains(message), err.toString());
    }
}
