package io.gpuwatch.probe.attribution;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;

import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Pod labels from the kubelet's {@code /pods} list, fetched every {@code refreshEvery} and answered from the last
 * list fetched. A failing kubelet keeps the last list and is reported once per failure episode.
 */
public final class KubeletPodLabels implements PodLabelSource {
    private final Vertx vertx;
    private final KubeletConfig config;
    private final Consumer<String> onProblem;
    private final HttpClientAgent client;
    private final AtomicBoolean failing = new AtomicBoolean();
    private final AtomicBoolean inFlight = new AtomicBoolean();
    private volatile Map<String, Map<String, String>> pods = Map.of();
    private volatile long timer = -1;

    /**
     * @param onProblem gets one line when fetching starts to fail (and again only after a success), and one when the
     *                  configured CA bundle is missing
     */
    public KubeletPodLabels(Vertx vertx, KubeletConfig config, Consumer<String> onProblem) {
        this.vertx = vertx;
        this.config = config;
        this.onProblem = onProblem;
        HttpClientOptions options = new HttpClientOptions().setDecompressionSupported(true);
        if (config.insecureSkipVerify()) {
            options.setTrustAll(true).setVerifyHost(false);
        } else if (config.caFile() != null) {
            if (Files.isReadable(config.caFile())) {
                options.setTrustOptions(new PemTrustOptions().addCertPath(config.caFile().toString()));
            } else {
                onProblem.accept("kubelet CA bundle " + config.caFile() + " cannot be read; trusting the JVM's CAs");
            }
        }
        this.client = vertx.createHttpClient(options);
    }

    /** Fetches the pod list now and then every {@code refreshEvery}; completes after the first fetch, even a failed one. */
    public Future<Void> start() {
        return refresh().<Void>mapEmpty().otherwiseEmpty().onComplete(ar -> {
            timer = vertx.setPeriodic(config.refreshEvery().toMillis(), id -> refresh());
        });
    }

    /** Fetches the pod list once; succeeds with the number of pods known, fails (keeping the old list) on a bad fetch. */
    public Future<Integer> refresh() {
        if (!inFlight.compareAndSet(false, true)) {
            return Future.succeededFuture(pods.size());
        }
        long timeoutMs = config.timeout().toMillis();
        Future<Buffer> token = config.tokenFile() == null ? Future.succeededFuture(null)
                : vertx.fileSystem().readFile(config.tokenFile().toString())
                .recover(e -> Future.failedFuture("cannot read the kubelet token " + config.tokenFile() + ": "
                        + e.getMessage()));
        return token.compose(t -> {
                    RequestOptions req = new RequestOptions().setMethod(HttpMethod.GET)
                            .setAbsoluteURI(config.url() + "/pods").putHeader(HttpHeaders.ACCEPT, "application/json")
                            .setConnectTimeout(timeoutMs).setIdleTimeout(timeoutMs);
                    if (t != null) {
                        req.putHeader(HttpHeaders.AUTHORIZATION, "Bearer " + t.toString().strip());
                    }
                    return client.request(req);
                })
                .compose(req -> req.send())
                .compose(resp -> resp.body().compose(body -> resp.statusCode() == 200 ? Future.succeededFuture(body)
                        : Future.failedFuture("kubelet answered HTTP " + resp.statusCode())))
                .timeout(timeoutMs, TimeUnit.MILLISECONDS)
                .compose(KubeletPodLabels::parse)
                .map(list -> {
                    pods = list;
                    failing.set(false);
                    return list.size();
                })
                .onFailure(e -> {
                    if (failing.compareAndSet(false, true)) {
                        onProblem.accept("kubelet pod labels from " + config.url() + " unavailable: " + e.getMessage());
                    }
                })
                .onComplete(ar -> inFlight.set(false));
    }

    /** Stops refreshing and closes the HTTP client. */
    public Future<Void> stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
        return client.close();
    }

    @Override
    public Map<String, String> labelsOf(String podUid) {
        return pods.getOrDefault(podUid, Map.of());
    }

    /** Pod UID to labels from a kubelet {@code PodList}. */
    static Future<Map<String, Map<String, String>>> parse(Buffer body) {
        JsonObject list;
        try {
            list = new JsonObject(body);
        } catch (DecodeException e) {
            return Future.failedFuture("the kubelet's pod list is not JSON: " + e.getMessage());
        }
        if (!(list.getValue("items") instanceof JsonArray items)) {
            return Future.failedFuture("the kubelet's answer has no 'items' list of pods");
        }
        Map<String, Map<String, String>> out = new HashMap<>();
        for (Object item : items) {
            if (!(item instanceof JsonObject pod) || !(pod.getValue("metadata") instanceof JsonObject meta)
                    || !(meta.getValue("uid") instanceof String uid)) {
                continue;
            }
            Map<String, String> labels = new HashMap<>();
            if (meta.getValue("labels") instanceof JsonObject l) {
                l.forEach(e -> {
                    if (e.getValue() instanceof String v) {
                        labels.put(e.getKey(), v);
                    }
                });
            }
            out.put(uid.toLowerCase(), Map.copyOf(labels));
        }
        return Future.succeededFuture(Map.copyOf(out));
    }
}
