package io.gpuwatch.probe.attribution;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.gpuwatch.probe.http.Fetched;
import io.gpuwatch.probe.http.HttpGet;
import io.gpuwatch.probe.net.Dialer;
import io.gpuwatch.probe.net.TlsTrust;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Pod labels from the kubelet's {@code /pods} list, fetched every {@code refreshEvery} on a daemon thread of its own
 * with a blocking {@link HttpGet} and answered from the last list fetched. A failing kubelet keeps the last list and
 * is reported once per failure episode.
 */
public final class KubeletPodLabels implements PodLabelSource {
    private static final Logger LOG = Logger.getLogger(KubeletPodLabels.class.getName());
    /** A node's pod list is read as it streams in, so this bounds the time spent, not the memory. */
    private static final long MAX_BODY_BYTES = 64L << 20;
    private static final JsonFactory JSON = new JsonFactory();

    private final KubeletConfig config;
    private final Consumer<String> onProblem;
    private final HttpGet http;
    private final URI podsUrl;
    private final AtomicBoolean failing = new AtomicBoolean();
    private final AtomicBoolean inFlight = new AtomicBoolean();
    private final ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "gpuwatch-kubelet");
        t.setDaemon(true);
        return t;
    });
    private volatile Map<String, Map<String, String>> pods = Map.of();

    /**
     * @param onProblem gets one line when fetching starts to fail (and again only after a success), and one when the
     *                  configured CA bundle is missing
     * @throws IllegalArgumentException when the configured URL is no URL
     */
    public KubeletPodLabels(KubeletConfig config, Consumer<String> onProblem) {
        this.config = config;
        this.onProblem = onProblem;
        TlsTrust trust = TlsTrust.JVM;
        if (config.insecureSkipVerify()) {
            trust = TlsTrust.ANY;
        } else if (config.caFile() != null) {
            if (Files.isReadable(config.caFile())) {
                trust = TlsTrust.pem(config.caFile());
            } else {
                onProblem.accept("kubelet CA bundle " + config.caFile() + " cannot be read; trusting the JVM's CAs");
            }
        }
        this.http = new HttpGet(new Dialer(trust), config.timeout().toMillis(), MAX_BODY_BYTES);
        this.podsUrl = URI.create(config.url() + "/pods");
    }

    /** Fetches the pod list now and then every {@code refreshEvery}; completes after the first fetch, even a failed one. */
    public CompletableFuture<Void> start() {
        CompletableFuture<Void> first = new CompletableFuture<>();
        thread.execute(() -> {
            refreshOrLog();
            first.complete(null);
        });
        long every = config.refreshEvery().toMillis();
        thread.scheduleWithFixedDelay(this::refreshOrLog, every, every, TimeUnit.MILLISECONDS);
        return first;
    }

    /** Fetches the pod list once, on the calling thread: the number of pods known, or why the old list stays. */
    public Fetched<Integer> refresh() {
        if (!inFlight.compareAndSet(false, true)) {
            return new Fetched.Ok<>(pods.size());
        }
        try {
            Fetched<Map<String, Map<String, String>>> list = fetch();
            if (list instanceof Fetched.Ok<Map<String, Map<String, String>>> ok) {
                pods = ok.value();
                failing.set(false);
                return new Fetched.Ok<>(ok.value().size());
            }
            String why = ((Fetched.Failed<?>) list).why();
            if (failing.compareAndSet(false, true)) {
                onProblem.accept("kubelet pod labels from " + config.url() + " unavailable: " + why);
            }
            return new Fetched.Failed<>(why);
        } finally {
            inFlight.set(false);
        }
    }

    /** Stops refreshing and closes the idle connection. */
    public void stop() {
        thread.shutdownNow();
        http.close();
    }

    @Override
    public Map<String, String> labelsOf(String podUid) {
        return pods.getOrDefault(podUid, Map.of());
    }

    /** A periodic refresh that threw would never run again: a bug is logged, and refreshing goes on. */
    private void refreshOrLog() {
        try {
            refresh();
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "kubelet pod labels from " + config.url() + ": refresh failed", e);
        }
    }

    private Fetched<Map<String, Map<String, String>>> fetch() {
        Map<String, String> headers = new HashMap<>();
        headers.put("Accept", "application/json");
        if (config.tokenFile() != null) {
            try {
                // read at every refresh: projected service-account tokens rotate
                headers.put("Authorization", "Bearer " + Files.readString(config.tokenFile(), StandardCharsets.UTF_8)
                        .strip());
            } catch (IOException e) {
                return new Fetched.Failed<>("cannot read the kubelet token " + config.tokenFile() + ": " + e);
            }
        }
        Fetched<Map<String, Map<String, String>>> list = http.get(podsUrl, headers, KubeletPodLabels::parse);
        // "kubelet answered HTTP 401": the status is the kubelet's, not the token file's or the parser's
        return list instanceof Fetched.Failed<?> f && f.why().startsWith("answered HTTP ")
                ? new Fetched.Failed<>("kubelet " + f.why()) : list;
    }

    /**
     * Pod UID to labels from a kubelet {@code PodList}, read as it streams: only {@code items[].metadata.uid} and
     * {@code .labels} are kept, a label whose value is not a string is no label, an item without a uid is skipped.
     *
     * @throws IOException naming what is wrong with the document
     */
    static Map<String, Map<String, String>> parse(InputStream body) throws IOException {
        Map<String, Map<String, String>> out = new HashMap<>();
        boolean items = false;
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("the kubelet's pod list is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("items") && value == JsonToken.START_ARRAY) {
                    items = true;
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        pod(p, out);
                    }
                } else {
                    p.skipChildren();
                }
            }
        } catch (JsonProcessingException e) {
            throw new IOException("the kubelet's pod list is not JSON: " + e.getOriginalMessage() + " (line "
                    + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")");
        }
        if (!items) {
            throw new IOException("the kubelet's answer has no 'items' list of pods");
        }
        return Map.copyOf(out);
    }

    /** One item of the list, the parser at its first token; left at its last. */
    private static void pod(JsonParser p, Map<String, Map<String, String>> out) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        String uid = null;
        Map<String, String> labels = new HashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            if (p.nextToken() == JsonToken.START_OBJECT && field.equals("metadata")) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    JsonToken value = p.nextToken();
                    if (key.equals("uid") && value == JsonToken.VALUE_STRING) {
                        uid = p.getText();
                    } else if (key.equals("labels") && value == JsonToken.START_OBJECT) {
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String label = p.currentName();
                            if (p.nextToken() == JsonToken.VALUE_STRING) {
                                labels.put(label, p.getText());
                            } else {
                                p.skipChildren();
                            }
                        }
                    } else {
                        p.skipChildren();
                    }
                }
            } else {
                p.skipChildren();
            }
        }
        if (uid != null) {
            out.put(uid.toLowerCase(Locale.ROOT), Map.copyOf(labels));
        }
    }
}
