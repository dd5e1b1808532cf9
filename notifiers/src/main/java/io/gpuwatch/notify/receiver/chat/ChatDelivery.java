package io.gpuwatch.notify.receiver.chat;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Redaction;
import io.gpuwatch.notify.config.Fields;
import io.gpuwatch.notify.retry.Outcome;
import io.gpuwatch.notify.retry.Retrier;
import io.gpuwatch.notify.secret.Secret;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Posts a chat receiver's messages to its target: queued and paced by a {@link Pacer}, retried by a
 * {@link Retrier}, each attempt under a deadline, each answer judged by the receiver (chat services report
 * errors inside HTTP 200). A rate-limit answer that names a wait also holds back the messages queued behind.
 * Errors show the target as {@code scheme://host[:port]/…} with the URL's secret parts and the signing secret
 * scrubbed from every message.
 */
public final class ChatDelivery {
    /**
     * One request: the absolute URL, the JSON body and any headers beyond the JSON ones (an app's access token),
     * built afresh per attempt so signatures stay current.
     */
    public record Request(String url, Buffer body, Map<String, String> headers) {
        public Request {
            Objects.requireNonNull(url, "url");
            Objects.requireNonNull(body, "body");
            headers = Map.copyOf(headers);
        }

        /** A request with the JSON headers only. */
        public Request(String url, Buffer body) {
            this(url, body, Map.of());
        }

        @Override
        public String toString() {
            return "Request[url=" + Redaction.url(url) + ", " + body.length() + " bytes]";
        }
    }

    private final String receiver;
    private final String target;
    private final List<String> secrets;
    private final ChatSettings settings;
    private final WebClient client;
    private final Retrier retrier;
    private final Pacer pacer;
    private final InstantSource clock;

    /**
     * A delivery to the target at {@code url} (shown redacted); {@code secrets} are scrubbed from errors on top
     * of the URL's own path and query.
     */
    public ChatDelivery(String receiver, String url, List<String> secrets, ChatSettings settings,
                        ChatSending sending) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
        this.target = Redaction.url(url);
        List<String> s = new ArrayList<>(secrets);
        s.addAll(urlParts(url));
        this.secrets = List.copyOf(s);
        this.settings = Objects.requireNonNull(settings, "settings");
        this.client = sending.client();
        this.retrier = new Retrier(settings.retry(), sending.random(), sending.pause());
        this.pacer = new Pacer(settings.minIntervalMs(), sending.pause(), sending.clock());
        this.clock = sending.clock();
    }

    /** Queues one message; the future ends once it is delivered or the retries are spent. */
    public Future<Void> deliver(Supplier<Request> request, Function<Reply, Outcome> judge) {
        return deliverAsync(() -> Future.succeededFuture(request.get()), judge);
    }

    /**
     * As {@link #deliver}, for requests that need something fetched first (an app's access token): a request
     * that cannot be made counts as a failed attempt and is retried.
     */
    public Future<Void> deliverAsync(Supplier<Future<Request>> request, Function<Reply, Outcome> judge) {
        return pacer.enqueue(() -> retrier.run(receiver, () -> pacer.slot().compose(v -> request.get()
                .compose(r -> attempt(r, judge))
                .otherwise(this::transportError))));
    }

    /**
     * Queues a message already cut to the service's size limit; none at all (even its title is over the limit)
     * fails at once, not retryable, with {@code overLimit} as the error. {@code request} makes each attempt's
     * request from the message.
     */
    public <T> Future<Void> deliverFitted(Optional<T> message, String overLimit,
                                          Function<T, Future<Request>> request, Function<Reply, Outcome> judge) {
        if (message.isEmpty()) {
            return Future.failedFuture(new DeliveryFailure(receiver, 0, overLimit, false));
        }
        T fitted = message.get();
        return deliverAsync(() -> request.apply(fitted), judge);
    }

    private Future<Outcome> attempt(Request r, Function<Reply, Outcome> judge) {
        var post = client.postAbs(r.url());
        r.headers().forEach(post::putHeader);
        return post
                .putHeader("Content-Type", "application/json; charset=utf-8")
                .putHeader("User-Agent", "gpuwatch")
                // The Web Client timeout only fires on inactivity; it frees the connection of a silent server.
                .timeout(settings.timeoutMs())
                .sendBuffer(r.body())
                // A server that trickles bytes never trips the inactivity timeout; this deadline bounds the attempt.
                .timeout(settings.timeoutMs(), TimeUnit.MILLISECONDS)
                .map(response -> judge.apply(reply(response)))
                .otherwise(this::transportError)
                .map(this::holdOnRateLimit);
    }

    private Reply reply(HttpResponse<Buffer> response) {
        return new Reply(response.statusCode(), response.headers(), response.bodyAsString(), target,
                this::scrub, clock.instant());
    }

    private Outcome holdOnRateLimit(Outcome outcome) {
        if (outcome instanceof Outcome.Retry retry && retry.after() != null) {
            pacer.hold(retry.after());
        }
        return outcome;
    }

    private Outcome transportError(Throwable e) {
        if (e instanceof TimeoutException) {
            return Outcome.retry("no response from " + target + " within " + settings.timeoutMs() + " ms");
        }
        String detail = e.getMessage() == null ? "" : ": " + scrub(e.getMessage());
        if (e instanceof ConnectException) {
            return Outcome.retry("could not connect to " + target + detail);
        }
        return Outcome.retry(e.getClass().getSimpleName() + " talking to " + target + detail);
    }

    private String scrub(String text) {
        return Redaction.text(text, secrets);
    }

    /**
     * Checks that the secret in field {@code key} is an absolute http(s) URL with a host, recording a problem
     * (that never echoes the URL's path or query) when it is not.
     */
    public static boolean checkUrl(Fields f, String key, Secret url) {
        try {
            URI uri = new URI(url.reveal());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                f.problem(key, "must be an http:// or https:// URL (from " + url.source() + ")");
                return false;
            }
            if (uri.getHost() == null) {
                f.problem(key, "has no host (from " + url.source() + ")");
                return false;
            }
            return true;
        } catch (URISyntaxException e) {
            f.problem(key, "is not a valid URL (" + e.getReason() + " at index " + e.getIndex() + ", from "
                    + url.source() + ")");
            return false;
        }
    }

    // Servers and Vert.x itself quote the request path ("while executing POST /hooks/…"), not only full URLs.
    private static List<String> urlParts(String url) {
        List<String> s = new ArrayList<>();
        s.add(url);
        try {
            URI uri = new URI(url);
            for (String part : new String[] {uri.getRawPath(), uri.getRawQuery(), uri.getRawUserInfo(),
                    uri.getPath(), uri.getQuery(), uri.getUserInfo()}) {
                if (part != null && !part.equals("/") && !part.isEmpty()) {
                    s.add(part);
                }
            }
            if (uri.getRawQuery() != null) {
                s.add(uri.getRawPath() + "?" + uri.getRawQuery());
            }
        } catch (URISyntaxException e) {
            // the whole URL is already listed
        }
        return s;
    }
}
