package io.gpuwatch.probe.sched.kubernetes;

import io.gpuwatch.probe.sched.JsonInput;
import io.gpuwatch.probe.sched.SchedInputError;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.parsetools.JsonParser;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The API server over HTTP: lists ({@code GET}, one JSON object) and watches ({@code ?watch=true}, a stream of
 * JSON event objects, one after another, that lasts until the server ends it), with the service account's bearer
 * token and CA.
 */
public final class KubeApi {
    private static final long LIST_TIMEOUT_MS = 30_000;
    /** Watches are asked to end by then; the server closes them itself within its own limit otherwise. */
    static final int WATCH_SECONDS = 300;

    private final String base;
    private final Path tokenFile;
    private final HttpClientAgent client;

    /**
     * @param base      the API server, e.g. https://kubernetes.default.svc
     * @param tokenFile bearer token, read at each request because projected tokens rotate; null for none
     * @param caFile    CA bundle of the API server's certificate; null trusts the JVM's CAs
     */
    public KubeApi(Vertx vertx, String base, Path tokenFile, Path caFile) {
        this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        this.tokenFile = tokenFile;
        HttpClientOptions options = new HttpClientOptions().setDecompressionSupported(true).setKeepAlive(true);
        if (caFile != null) {
            options.setTrustOptions(new PemTrustOptions().addCertPath(caFile.toString()));
        }
        this.client = vertx.createHttpClient(options);
    }

    public String base() {
        return base;
    }

    /** One list; fails with the URL and the API's own message on an HTTP error. */
    public Future<JsonObject> list(String path) {
        String url = base + path;
        return request(url, LIST_TIMEOUT_MS)
                .compose(resp -> resp.body().compose(body -> {
                    if (resp.statusCode() != 200) {
                        return Future.failedFuture(httpError(url, resp.statusCode(), body));
                    }
                    try {
                        String text = body.toString(StandardCharsets.UTF_8);
                        return Future.succeededFuture(new JsonInput(url).document(text));
                    } catch (SchedInputError e) {
                        return Future.failedFuture(e);
                    }
                }))
                .timeout(LIST_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * A watch from {@code resourceVersion}: each event object goes to {@code onEvent} as it arrives; completes
     * when the server ends the stream, fails when it cannot be opened or breaks mid-way.
     */
    public Future<Void> watch(String path, String resourceVersion, Consumer<JsonObject> onEvent) {
        String url = base + path + (path.contains("?") ? "&" : "?") + "watch=true&allowWatchBookmarks=true"
                + "&timeoutSeconds=" + WATCH_SECONDS + "&resourceVersion=" + resourceVersion;
        // bookmarks and the server's own end come well within this; a connection silent for longer is dead
        return request(url, (WATCH_SECONDS + 60) * 1000L).compose(resp -> {
            if (resp.statusCode() != 200) {
                return resp.body().compose(body -> Future.failedFuture(httpError(url, resp.statusCode(), body)));
            }
            Promise<Void> ended = Promise.promise();
            // the objects follow one another, newline-separated in practice; the parser needs no separator
            JsonParser parser = JsonParser.newParser(resp).objectValueMode();
            parser.handler(event -> onEvent.accept(event.objectValue()));
            parser.exceptionHandler(e -> ended.tryFail(new SchedInputError(url, e instanceof DecodeException
                    ? "a watch event that is not JSON: " + e.getMessage() : String.valueOf(e.getMessage()))));
            parser.endHandler(v -> ended.tryComplete());
            return ended.future();
        });
    }

    public Future<Void> close() {
        return client.close();
    }

    private Future<HttpClientResponse> request(String url, long idleTimeoutMs) {
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(url)
                .putHeader(HttpHeaders.ACCEPT, "application/json").setConnectTimeout(LIST_TIMEOUT_MS);
        if (idleTimeoutMs > 0) {
            options.setIdleTimeout(idleTimeoutMs);
        }
        if (tokenFile != null) {
            try {
                options.putHeader(HttpHeaders.AUTHORIZATION, "Bearer "
                        + Files.readString(tokenFile, StandardCharsets.UTF_8).strip());
            } catch (IOException e) {
                return Future.failedFuture(new SchedInputError(tokenFile.toString(), "cannot read the token: "
                        + e.getMessage()));
            }
        }
        try {
            return client.request(options).compose(req -> req.send());
        } catch (IllegalStateException closed) {
            // the client closes with Vert.x while a watch may still want to resume
            return Future.failedFuture(closed);
        }
    }

    /** The API's Status message where it sent one: "pods is forbidden: User … cannot list …". */
    private static SchedInputError httpError(String url, int status, Buffer body) {
        String message = null;
        try {
            message = new JsonObject(body).getString("message");
        } catch (RuntimeException notStatus) {
            // not a Status object: the status code says enough
        }
        return new SchedInputError(url, "answered HTTP " + status + (message == null ? "" : ": " + message));
    }
}
