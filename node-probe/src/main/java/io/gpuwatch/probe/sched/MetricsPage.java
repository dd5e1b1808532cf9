package io.gpuwatch.probe.sched;

import io.gpuwatch.probe.app.Exposition;
import io.gpuwatch.probe.app.ExpositionParser;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** A scheduler's Prometheus metrics page, fetched and parsed (lines that break the format are skipped and listed). */
public final class MetricsPage {
    private static final String ACCEPT = "text/plain;version=0.0.4;q=1,*/*;q=0.1";
    private static final long TIMEOUT_MS = 10_000;

    private final HttpClientAgent client;
    private final String url;

    public MetricsPage(Vertx vertx, String url) {
        this.client = vertx.createHttpClient(new HttpClientOptions().setDecompressionSupported(true));
        this.url = url;
    }

    public String url() {
        return url;
    }

    /** The page now; fails naming the URL when it cannot be fetched or answers other than 200. */
    public Future<Exposition> fetch() {
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(url)
                .putHeader(HttpHeaders.ACCEPT, ACCEPT).setConnectTimeout(TIMEOUT_MS).setIdleTimeout(TIMEOUT_MS);
        return client.request(options)
                .compose(req -> req.send().compose(resp -> resp.body().compose(body -> resp.statusCode() == 200
                        ? Future.succeededFuture(body)
                        : Future.failedFuture(new SchedInputError(url, "answered HTTP " + resp.statusCode())))))
                .timeout(TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .recover(e -> Future.failedFuture(e instanceof SchedInputError ? e
                        : new SchedInputError(url, e.getMessage() == null ? e.toString() : e.getMessage())))
                .map(body -> ExpositionParser.parse(body.toString(StandardCharsets.UTF_8)));
    }

    public Future<Void> close() {
        return client.close();
    }
}
