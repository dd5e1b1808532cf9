package io.gpuwatch.probe.sched.kubernetes;

import io.gpuwatch.probe.sched.Fixtures;
import io.gpuwatch.probe.sched.JsonInput;
import io.gpuwatch.probe.sched.SchedInputError;
import io.gpuwatch.probe.sched.SchedProducer;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Kubernetes adapter against a local API server that answers with recorded lists and watch streams
 * (resources/sched/kubernetes): lists first, then the watch events change what it reports.
 */
class KubernetesSourceTest {
    private static final long NOW = 1764700000_000L;
    private final Vertx vertx = Vertx.vertx();
    private final Map<String, AtomicInteger> lists = new ConcurrentHashMap<>();
    private final Promise<Void> release = Promise.promise();
    private boolean expirePodWatchOnce;

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** The API server: lists from the fixtures; the first watch of each kind streams its recording once released. */
    private String apiServer() throws Exception {
        Map<String, AtomicInteger> watches = new ConcurrentHashMap<>();
        HttpServer server = vertx.createHttpServer().requestHandler(req -> {
            String kind = req.path().substring(req.path().lastIndexOf('/') + 1);
            if (!"Bearer sa-token".equals(req.getHeader("Authorization"))) {
                req.response().setStatusCode(401).end("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":"
                        + "\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}");
            } else if (!"true".equals(req.getParam("watch"))) {
                lists.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
                req.response().putHeader("content-type", "application/json")
                        .end(Fixtures.read("kubernetes/" + kind + ".json"));
            } else {
                int n = watches.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
                stream(req, kind, n);
            }
        }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        return "http://127.0.0.1:" + server.actualPort();
    }

    private void stream(HttpServerRequest req, String kind, int n) {
        req.response().setChunked(true).putHeader("content-type", "application/json");
        if (kind.equals("pods") && expirePodWatchOnce && n == 1) {
            req.response().end(Fixtures.read("kubernetes/watch-expired.jsonl"));
            return;
        }
        if (n > 1) {
            return; // later watches stay open and quiet, as a real one does while nothing changes
        }
        release.future().onSuccess(v -> {
            // written in two pieces that split a line, as TCP may deliver them
            String events = Fixtures.read("kubernetes/" + kind + "-watch.jsonl");
            int cut = events.length() / 2;
            req.response().write(events.substring(0, cut));
            vertx.setTimer(20, t -> req.response().write(events.substring(cut)));
        });
    }

    private KubernetesSource source(String url, java.nio.file.Path token) {
        return new KubernetesSource(vertx, new KubeApi(vertx, url, token, null), "k8s-east", 50, () -> NOW);
    }

    private static java.nio.file.Path token() throws Exception {
        java.nio.file.Path t = java.nio.file.Files.createTempFile("sa", ".token");
        java.nio.file.Files.writeString(t, "sa-token\n");
        t.toFile().deleteOnExit();
        return t;
    }

    /** A read on the context the source lives on, where its watches change what it holds. */
    private static Sched read(Context context, KubernetesSource s) throws Exception {
        Promise<List<Frame>> frames = Promise.promise();
        context.runOnContext(v -> s.read(NOW).onComplete(frames));
        return (Sched) await(frames.future()).get(0);
    }

    /** A read by the producer, on its context: the newest sched frame it put out. */
    private static Sched latest(SchedProducer producer, List<Frame> out) throws Exception {
        await(producer.readOnce());
        for (int i = out.size() - 1; i >= 0; i--) {
            if (out.get(i) instanceof Sched s) {
                return s;
            }
        }
        throw new AssertionError("no sched frame: " + out);
    }

    private static void waitFor(BooleanSupplier condition, String what) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("never happened: " + what);
            }
            Thread.sleep(10);
        }
    }

    @Test
    void listsThenFollowsTheWatches() throws Exception {
        String url = apiServer();
        KubernetesSource source = source(url, token());
        List<Frame> out = new CopyOnWriteArrayList<>();
        SchedProducer producer = new SchedProducer(vertx, source, Duration.ofHours(1), () -> NOW, out::add);
        await(producer.start());

        Sched listed = (Sched) out.get(0);
        assertEquals("k8s-east", listed.queue());
        // pending: team-llm/train-70b-0 (8 cards, 900 s) and team-search/embed-0 (4 cards, 300 s)
        assertEquals(2, listed.values().get(Metric.PENDING));
        assertEquals(300, listed.values().get(Metric.WAIT_P50_S));
        assertEquals(900, listed.values().get(Metric.WAIT_P90_S));
        assertEquals(3, listed.values().get(Metric.RUNNING), "web-0 asks for no GPU");
        assertEquals(28, listed.values().get(Metric.CARDS_TOTAL), "gpu-a, -b, -c 8 each, gpu-d 4; cpu-1 none");
        assertEquals(14, listed.values().get(Metric.CARDS_ALLOCATED), "8 on gpu-a, 4 + 1 + 1 on gpu-b");
        assertEquals(12, listed.values().get(Metric.DRAINED_CARDS), "gpu-c cordoned, gpu-d not ready");
        assertEquals(2, listed.values().get(Metric.FRAGMENTED_CARDS), "gpu-b's 2 free, the smallest pod asks 4");
        assertEquals(26, listed.values().get(Metric.REQUESTED_CARDS));
        assertEquals(1, listed.values().get(Metric.PREEMPTIONS), "ranker-0's; web-0 holds no GPU");
        assertTrue(listed.tasks().contains(new SchedTask("train-70b", "team-llm", "chat-pretrain", List.of(),
                "pending", 8)), listed.tasks().toString());
        assertTrue(listed.tasks().contains(new SchedTask("team-search/embed-0", "team-search", null, List.of(),
                "pending", 4)), "no gpuwatch.io labels: the pod's name and namespace");
        List<String> drained = out.stream().filter(f -> f instanceof Event).map(f -> ((Event) f).text()).toList();
        assertEquals(List.of("node gpu-c takes no jobs: cordoned",
                "node gpu-d takes no jobs: NotReady: Kubelet stopped posting node status."), drained);

        release.complete();
        waitFor(() -> {
            try {
                Sched now = latest(producer, out);
                return now.values().get(Metric.PREEMPTIONS) == 2 && now.values().get(Metric.PENDING) == 2
                        && now.values().get(Metric.WAIT_P50_S) == 60 && now.values().get(Metric.DRAINED_CARDS) == 4;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }, "the watch events applied");
        Sched watched = latest(producer, out);
        // train-7b-0 finished, train-70b-0 bound to gpu-a, embed-1 (1 card, 60 s) came, gpu-c uncordoned
        assertEquals(300, watched.values().get(Metric.WAIT_MAX_S));
        assertEquals(14, watched.values().get(Metric.CARDS_ALLOCATED));
        assertEquals(0, watched.values().get(Metric.FRAGMENTED_CARDS), "a 1-card pod fits gpu-b's 2 free");
        assertEquals(19, watched.values().get(Metric.REQUESTED_CARDS));
        assertEquals(1, lists.get("pods").get(), "watched, not polled");
        await(producer.stop());
    }

    @Test
    void anExpiredWatchListsAgain() throws Exception {
        expirePodWatchOnce = true;
        KubernetesSource source = source(apiServer(), token());
        Context context = vertx.getOrCreateContext();
        await(context.<Void>executeBlocking(() -> null).compose(v -> source.start()));
        waitFor(() -> lists.get("pods").get() == 2, "a second list of pods after the 410");
        assertEquals(2, read(context, source).values().get(Metric.PENDING));
    }

    @Test
    void aRefusedListIsReportedWithTheApisMessage() throws Exception {
        java.nio.file.Path wrong = java.nio.file.Files.createTempFile("sa", ".token");
        wrong.toFile().deleteOnExit();
        String url = apiServer();
        KubernetesSource source = source(url, wrong);
        await(source.start());
        SchedInputError e = (SchedInputError) assertThrows(java.util.concurrent.ExecutionException.class,
                () -> source.read(NOW).toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS)).getCause();
        assertEquals(url + "/api/v1/nodes: answered HTTP 401: Unauthorized", e.getMessage());
    }

    @Test
    void aBadQuantityIsNamedWithItsPath() {
        JsonObject list = new JsonObject(Fixtures.read("kubernetes/pods.json").replaceFirst(
                "\"nvidia.com/gpu\": \"8\"", "\"nvidia.com/gpu\": \"lots\""));
        SchedInputError e = assertThrows(SchedInputError.class, () -> new KubeCluster("p")
                .listPods(list, new JsonInput("pods"), NOW));
        assertEquals("pods: items[0].spec.containers[0].resources.limits[\"nvidia.com/gpu\"]: expected a whole number "
                + "of cards, got \"lots\"", e.getMessage());
    }
}
