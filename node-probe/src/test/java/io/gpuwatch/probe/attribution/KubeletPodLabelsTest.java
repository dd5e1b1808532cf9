package io.gpuwatch.probe.attribution;

import io.gpuwatch.probe.http.Fetched;
import io.gpuwatch.protocol.ProcessInfo;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.SelfSignedCertificate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Pod labels from a fake kubelet (a Vert.x server answering the recorded pod list) over the blocking client. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class KubeletPodLabelsTest {
    private static final Path PODS = Path.of("src", "test", "resources", "scrape", "kubelet-pods.json");
    private static final String CHAT = "3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab";
    private static final String EMBED = "c41e9b7a-0f2d-4e8c-b1a5-9d6f3e2a7b10";
    private final List<String> problems = new CopyOnWriteArrayList<>();
    private final AtomicInteger status = new AtomicInteger(200);
    private Vertx vertx;

    @BeforeEach
    void vertx() {
        vertx = Vertx.vertx();
    }

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** A kubelet that wants {@code Bearer s3cret} and answers the recorded pod list, or {@link #status}. */
    private int kubelet(HttpServerOptions options) throws Exception {
        Buffer pods = Buffer.buffer(Files.readAllBytes(PODS));
        HttpServer server = vertx.createHttpServer(options).requestHandler(req -> {
            if (!"Bearer s3cret".equals(req.getHeader("Authorization"))) {
                req.response().setStatusCode(401).end("Unauthorized");
            } else if (!req.path().equals("/pods")) {
                req.response().setStatusCode(404).end();
            } else {
                req.response().setStatusCode(status.get()).putHeader("Content-Type", "application/json").end(pods);
            }
        }).listen(0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        return server.actualPort();
    }

    private static Path token(Path dir, String token) throws IOException {
        // the kubelet-issued file ends with a newline, which must not reach the header
        return Files.writeString(dir.resolve("token"), token + "\n");
    }

    private static KubeletConfig config(String url, Path token) {
        return new KubeletConfig(url, token, null, false, Duration.ofMinutes(10), Duration.ofSeconds(3));
    }

    @Test
    void podLabelsComeFromTheKubeletsPodList(@TempDir Path dir) throws Exception {
        KubeletPodLabels k = new KubeletPodLabels(config("http://localhost:" + kubelet(new HttpServerOptions()),
                token(dir, "s3cret")), problems::add);
        assertEquals(new Fetched.Ok<>(3), k.refresh());
        k.stop();
        assertEquals(Map.of("app.kubernetes.io/name", "svc-chat-70b", "pod-template-hash", "7d9f8c6b5",
                "team", "team-llm", "gpuwatch.io/business", "chat"), k.labelsOf(CHAT));
        // a label whose value is not a string is no label
        assertEquals(Map.of("gpuwatch.io/task", "embed-batch", "team", "team-search"), k.labelsOf(EMBED));
        assertEquals(Map.of(), k.labelsOf("00000000-0000-0000-0000-000000000000"));
        assertEquals(List.of(), problems);
    }

    @Test
    void theAttributorReadsThemWithTheLabelsFilesKeys(@TempDir Path dir) throws Exception {
        Labels labels = ((LabelsLoad.Loaded) LabelsLoader.parse("labels.yaml", """
                podLabels:
                  task: [gpuwatch.io/task, app.kubernetes.io/name]
                  owner: team
                """)).labels();
        KubeletPodLabels k = new KubeletPodLabels(config("http://localhost:" + kubelet(new HttpServerOptions()),
                token(dir, "s3cret")), problems::add);
        Attributor a = Attributor.builder(() -> 0L).procRoot(Path.of("src", "test", "resources", "proc"))
                .labels(() -> labels).podLabels(k).build();
        k.start().get(10, TimeUnit.SECONDS);
        k.stop();
        assertEquals(new ProcessInfo(1001, 9L, "svc-chat-70b", "team-llm", "chat"), a.attribute(1001, 9L));
        assertEquals(new ProcessInfo(1003, 9L, "embed-batch", "team-search", null), a.attribute(1003, 9L));
    }

    @Test
    void aRefusedTokenKeepsTheLastListAndIsReportedOncePerEpisode(@TempDir Path dir) throws Exception {
        Path token = token(dir, "s3cret");
        int port = kubelet(new HttpServerOptions());
        KubeletPodLabels k = new KubeletPodLabels(config("http://localhost:" + port, token), problems::add);
        assertEquals(new Fetched.Ok<>(3), k.refresh());
        token(dir, "expired");
        assertEquals(new Fetched.Failed<>("kubelet answered HTTP 401"), k.refresh());
        assertEquals(new Fetched.Failed<>("kubelet answered HTTP 401"), k.refresh());
        k.stop();
        assertEquals(List.of("kubelet pod labels from http://localhost:" + port
                + " unavailable: kubelet answered HTTP 401"), problems);
        assertEquals("team-llm", k.labelsOf(CHAT).get("team"));
    }

    @Test
    void aKubeletThatIsDownIsReportedAndNotThrown(@TempDir Path dir) throws Exception {
        // a port that was just free: nothing listens there
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        KubeletPodLabels k = new KubeletPodLabels(config("http://localhost:" + port, token(dir, "s3cret")),
                problems::add);
        k.start().get(10, TimeUnit.SECONDS);
        k.stop();
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).startsWith("kubelet pod labels from http://localhost:" + port
                + " unavailable: cannot connect"), problems.get(0));
        assertEquals(Map.of(), k.labelsOf(CHAT));
    }

    @Test
    void aMissingTokenFileIsAProblemNotAnException(@TempDir Path dir) {
        KubeletPodLabels k = new KubeletPodLabels(config("http://localhost:1", dir.resolve("none")), problems::add);
        assertInstanceOf(Fetched.Failed.class, k.refresh());
        k.stop();
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).contains("cannot read the kubelet token " + dir.resolve("none")), problems.get(0));
    }

    @Test
    void httpsWithAnUntrustedCertificateNeedsInsecureSkipVerify(@TempDir Path dir) throws Exception {
        Path token = token(dir, "s3cret");
        SelfSignedCertificate cert = SelfSignedCertificate.create("localhost");
        String url = "https://localhost:" + kubelet(new HttpServerOptions().setSsl(true)
                .setKeyCertOptions(cert.keyCertOptions()));
        KubeletPodLabels strict = new KubeletPodLabels(config(url, token), problems::add);
        KubeletPodLabels lax = new KubeletPodLabels(config(url, token).withInsecureSkipVerify(true), problems::add);
        KubeletPodLabels pinned = new KubeletPodLabels(config(url, token).withCaFile(Path.of(cert.certificatePath())),
                problems::add);
        assertInstanceOf(Fetched.Failed.class, strict.refresh());
        assertEquals(new Fetched.Ok<>(3), lax.refresh());
        assertEquals(new Fetched.Ok<>(3), pinned.refresh());
        strict.stop();
        lax.stop();
        pinned.stop();
        assertEquals("svc-chat-70b", lax.labelsOf(CHAT).get("app.kubernetes.io/name"));
        assertEquals(1, problems.size());
    }

    @Test
    void aMissingCaBundleFallsBackToTheJvmsTrustAndSaysSo(@TempDir Path dir) {
        KubeletPodLabels k = new KubeletPodLabels(config("https://localhost:1", dir.resolve("token"))
                .withCaFile(dir.resolve("ca.crt")), problems::add);
        k.stop();
        assertEquals(List.of("kubelet CA bundle " + dir.resolve("ca.crt") + " cannot be read; trusting the JVM's CAs"),
                problems);
    }

    @Test
    void aPodListThatIsNoJsonOrHasNoItemsIsNamedAsSuch() {
        IOException notJson = assertThrows(IOException.class, () -> parse("{\"items\": [ {\"metadata\": "));
        assertTrue(notJson.getMessage().startsWith("the kubelet's pod list is not JSON: "), notJson.getMessage());
        IOException noItems = assertThrows(IOException.class, () -> parse("{\"kind\": \"Status\", \"code\": 403}"));
        assertEquals("the kubelet's answer has no 'items' list of pods", noItems.getMessage());
        IOException array = assertThrows(IOException.class, () -> parse("[]"));
        assertEquals("the kubelet's pod list is not a JSON object", array.getMessage());
    }

    @Test
    void itemsOfTheWrongShapeAreSkipped() throws IOException {
        assertEquals(Map.of("abc", Map.of("a", "b")), parse("""
                {"items": [1, "x", null, {"metadata": 5}, {"metadata": {"name": "no-uid"}},
                           {"spec": {}, "metadata": {"uid": "ABC", "labels": {"a": "b", "n": {"deep": [1]}}}}]}
                """));
    }

    private static Map<String, Map<String, String>> parse(String json) throws IOException {
        return KubeletPodLabels.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
    }
}
