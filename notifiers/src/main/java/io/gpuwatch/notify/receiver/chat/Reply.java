package io.gpuwatch.notify.receiver.chat;

import io.gpuwatch.notify.retry.Outcome;
import io.gpuwatch.notify.retry.RetryAfter;
import io.vertx.core.MultiMap;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.LongFunction;
import java.util.function.UnaryOperator;

/**
 * A chat target's answer to one request, with the wording receivers use to judge it: errors name the
 * target as {@code scheme://host/…} and quote the body with secrets scrubbed.
 */
public final class Reply {
    private static final int EXCERPT_CHARS = 200;

    private final int status;
    private final MultiMap headers;
    private final String body;
    private final String target;
    private final UnaryOperator<String> scrub;
    private final Instant now;

    Reply(int status, MultiMap headers, String body, String target, UnaryOperator<String> scrub, Instant now) {
        this.status = status;
        this.headers = headers;
        this.body = body == null ? "" : body;
        this.target = target;
        this.scrub = scrub;
        this.now = now;
    }

    /** The HTTP status code. */
    public int status() {
        return status;
    }

    /** True for 2xx. */
    public boolean ok() {
        return status >= 200 && status < 300;
    }

    /** A response header, or null. */
    public String header(String name) {
        return headers.get(name);
    }

    /** The response body as text, empty when there was none. */
    public String body() {
        return body;
    }

    /** The body as a JSON object, or null when it is not one. */
    public JsonObject json() {
        try {
            return body.isBlank() || body.strip().charAt(0) != '{' ? null : new JsonObject(body);
        } catch (DecodeException e) {
            return null;
        }
    }

    /** {@code Retry-After} as a wait (seconds or an HTTP date), if the target sent one. */
    public Optional<Duration> retryAfter() {
        return RetryAfter.parse(header("Retry-After"), now);
    }

    /** {@code HTTP <status> from <target>: <detail>}, detail scrubbed and flattened to one short line. */
    public String error(String detail) {
        String flat = scrub.apply(detail == null ? "" : detail).replaceAll("[\\p{Cntrl}\\s]+", " ").trim();
        if (flat.length() > EXCERPT_CHARS) {
            flat = flat.substring(0, EXCERPT_CHARS) + "…";
        }
        return "HTTP " + status + " from " + target + (flat.isEmpty() ? "" : ": " + flat);
    }

    /**
     * The reading of a robot that reports errors as HTTP 200 with {@code {"errcode": n, "errmsg": "…"}} (DingTalk,
     * WeCom): another status as {@link #byStatus}; errcode 0 (or none) delivered; any other code as
     * {@code onError} decides, given the code and the error quoting it, its errmsg and {@code hint} for it.
     */
    public Outcome byErrcode(LongFunction<String> hint, BiFunction<Long, String, Outcome> onError) {
        if (!ok()) {
            return byStatus();
        }
        JsonObject json = json();
        long code = json == null ? 0 : json.getLong("errcode", 0L);
        if (code == 0) {
            return Outcome.delivered();
        }
        return onError.apply(code, error("errcode " + code + " " + json.getString("errmsg", "") + hint.apply(code)));
    }

    /**
     * The usual reading of the status alone: 2xx delivered; 429 and 5xx retried, after {@code Retry-After} when
     * given; any other status rejected, quoting the body.
     */
    public Outcome byStatus() {
        if (ok()) {
            return Outcome.delivered();
        }
        String error = error(body);
        if (status == 429 || status >= 500) {
            return retryAfter().map(wait -> Outcome.retryAfter(error, wait)).orElseGet(() -> Outcome.retry(error));
        }
        return Outcome.reject(error);
    }
}
