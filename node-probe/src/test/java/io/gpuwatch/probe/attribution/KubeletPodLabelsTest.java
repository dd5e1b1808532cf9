package io.gpuwatch.probe.attribution;

import io.gpuwatch.protocol.ProcessInfo;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.SelfSignedCertificate;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
@Timeout(value = 20, timeUnit = TimeUnit.SECONDS)
class KubeletPodLabelsTest {
    private static final Path PODS = Path.of("src", "test", "resources", "scrape", "kubelet-pods.json");
    private static final String CHAT = "3f1c2a9e-5b7d-4c1e-9a8f-0123456789ab";
    private static final String EMBED = "c41e9b7a-0f2d-4e8c-b1a5-9d6f3e2a7b10";
    private final List<String> problems = new CopyOnWriteArrayList<>();
    private final AtomicInteger status = new AtomicInteger(200);

    /** A kubelet that wants {@code Bearer s3cret} and answers the recorded pod list, or {@link #status}. */
    private Future<HttpServer> kubelet(Vertx vertx, HttpServerOptions options) throws IOException {
        Buffer pods = Buffer.buffer(Files.readAllBytes(PODS));
        return vertx.createHttpServer(options).requestHandler(req -> {
            if (!"Bearer s3cret".equals(req.getHeader("Authorization"))) {
                req.response().setStatusCode(401).end("Unauthorized");
            } else if (!req.path().equals("/pods")) {
                req.response().setStatusCode(404).end();
            } else {
                req.response().setStatusCode(status.get()).putHeader("Content-Type", "application/json").end(pods);
            }
        }).listen(0);
    }

    private static Path token(Path dir, String token) throws IOException {
        // the kubelet-issued file ends with a newline, which must not reach the header
        return Files.writeString(dir.resolve("token"), token + "\n");
    }

    private static KubeletConfig config(String url, Path token) {
        return new KubeletConfig(url, token, null, false, Duration.ofMinutes(10), Duration.ofSeconds(3));
    }

    @Test
    void podLabelsComeFromTheKubeletsPodList(Vertx vertx, VertxTestContext ctx, @TempDir Path dir) throws IOException {
        Path token = token(dir, "s3cret");
        kubelet(vertx, new HttpServerOptions()).compose(server -> {
            KubeletPodLabels k = new KubeletPodLabels(vertx,
                    config("http://localhost:" + server.actualPort(), token), problems::add);
            return k.refresh().map(n -> {
                ctx.verify(() -> {
                    assertEquals(3, n);
                    assertEquals(Map.of("app.kubernetes.io/name", "svc-chat-70b", "pod-template-hash", "7d9f8c6b5",
                            "team", "team-llm", "gpuwatch.io/business", "chat"), k.labelsOf(CHAT));
                    // a label whose value is not a string is no label
                    assertEquals(Map.of("gpuwatch.io/task", "embed-batch", "team", "team-search"), k.labelsOf(EMBED));
                    assertEquals(Map.of(), k.labelsOf("00000000-0000-0000-0000-000000000000"));
                    assertEquals(List.of(), problems);
                });
                return k;
            });
        }).compose(KubeletPodLabels::stop).onComplete(ctx.succeedingThenComplete());
    }

    @Test
    void theAttributorReadsThemWithTheLabelsFilesKeys(Vertx vertx, VertxTestContext ctx, @TempDir Path dir)
            throws IOException {
        Path token = token(dir, "s3cret");
        Labels labels = ((LabelsLoad.Loaded) LabelsLoader.parse("labels.yaml", """
                podLabels:
                  task: [gpuwatch.io/task, app.kubernetes.io/name]
                  owner: team
                """)).labels();
        kubelet(vertx, new HttpServerOptions()).compose(server -> {
            KubeletPodLabels k = new KubeletPodLabels(vertx,
                    config("http://localhost:" + server.actualPort(), token), problems::add);
            Attributor a = Attributor.builder(() -> 0L).procRoot(Path.of("src", "test", "resources", "proc"))
                    .labels(() -> labels).podLabels(k).build();
            return k.start().map(v -> {
                ctx.verify(() -> {
                    assertEquals(new ProcessInfo(1001, 9L, "svc-chat-70b", "team-llm", "chat"), a.attribute(1001, 9L));
                    assertEquals(new ProcessInfo(1003, 9L, "embed-batch", "team-search", null), a.attribute(1003, 9L));
                });
                return k;
            });
        }).compose(KubeletPodLabels::stop).onComplete(ctx.succeedingThenComplete());
    }

    @Test
    void aRefusedTokenKeepsTheLastListAndIsReportedOncePerEpisode(Vertx vertx, VertxTestContext ctx,
                                                                  @TempDir Path dir) throws IOException {
        Path token = token(dir, "s3cret");
        kubelet(vertx, new HttpServerOptions()).compose(server -> {
            KubeletPodLabels k = new KubeletPodLabels(vertx,
                    config("http://localhost:" + server.actualPort(), token), problems::add);
            return k.refresh()
                    .compose(n -> {
                        try {
                            token(dir, "expired");
                        } catch (IOException e) {
                            return Future.failedFuture(e);
                        }
                        return k.refresh().transform(ar -> Future.succeededFuture(ar.failed()));
                    })
                    .compose(failed -> k.refresh().transform(ar -> Future.succeededFuture(failed && ar.failed())))
                    .map(bothFailed -> {
                        ctx.verify(() -> {
                            assertTrue(bothFailed);
                            assertEquals(List.of("kubelet pod labels from http://localhost:" + server.actualPort()
                                    + " unavailable: kubelet answered HTTP 401"), problems);
                            assertEquals("team-llm", k.labelsOf(CHAT).get("team"));
                        });
                        return k;
                    });
        }).compose(KubeletPodLabels::stop).onComplete(ctx.succeedingThenComplete());
    }

    @Test
    void aKubeletThatIsDownIsReportedAndNotThrown(Vertx vertx, VertxTestContext ctx, @TempDir Path dir)
            throws IOException {
        Path token = token(dir, "s3cret");
        // a port that was just free: nothing listens there
        vertx.createHttpServer().requestHandler(r -> r.response().end()).listen(0).compose(s -> {
            int port = s.actualPort();
            return s.close().map(port);
        }).compose(port -> {
            KubeletPodLabels k = new KubeletPodLabels(vertx, config("http://localhost:" + port, token), problems::add);
            return k.start().map(v -> {
                ctx.verify(() -> {
                    assertEquals(1, problems.size());
                    assertTrue(problems.get(0).startsWith("kubelet pod labels from http://localhost:" + port
                            + " unavailable: "), problems.get(0));
                    assertEquals(Map.of(), k.labelsOf(CHAT));
                });
                return k;
            });
        }).compose(KubeletPodLabels::stop).onComplete(ctx.succeedingThenComplete());
    }

    @Test
    void aMissingTokenFileIsAProblemNotAnException(Vertx vertx, VertxTestContext ctx, @TempDir Path dir) {
        KubeletPodLabels k = new KubeletPodLabels(vertx, config("http://localhost:1", dir.resolve("none")),
                problems::add);
        k.refresh().onComplete(ctx.failing(e -> ctx.verify(() -> {
            assertEquals(1, problems.size());
            assertTrue(problems.get(0).contains("cannot read the kubelet token " + dir.resolve("none")), problems.get(0));
            k.stop().onComplete(ctx.succeedingThenComplete());
        })));
    }

    @Test
    void httpsWithAnUntrustedCertificateNeedsInsecureSkipVerify(Vertx vertx, VertxTestContext ctx, @TempDir Path dir)
            throws IOException {
        Path token = token(dir, "s3cret");
        SelfSignedCertificate cert = SelfSignedCertificate.create("localhost");
        kubelet(vertx, new HttpServerOptions().setSsl(true).setKeyCertOptions(cert.keyCertOptions())).compose(server -> {
            String url = "https://localhost:" + server.actualPort();
            KubeletPodLabels strict = new KubeletPodLabels(vertx, config(url, token), problems::add);
            KubeletPodLabels lax = new KubeletPodLabels(vertx, config(url, token).withInsecureSkipVerify(true),
                    problems::add);
            KubeletPodLabels pinned = new KubeletPodLabels(vertx,
                    config(url, token).withCaFile(Path.of(cert.certificatePath())), problems::add);
            return strict.refresh().transform(ar -> Future.succeededFuture(ar.failed()))
                    .compose(strictFailed -> lax.refresh().compose(n -> pinned.refresh()).map(n -> {
                        ctx.verify(() -> {
                            assertTrue(strictFailed);
                            assertEquals(3, n);
                            assertEquals("svc-chat-70b", lax.labelsOf(CHAT).get("app.kubernetes.io/name"));
                            assertEquals(1, problems.size());
                        });
                        return n;
                    }))
                    .compose(n -> Future.join(strict.stop(), lax.stop(), pinned.stop()));
        }).onComplete(ctx.succeedingThenComplete());
    }
}
