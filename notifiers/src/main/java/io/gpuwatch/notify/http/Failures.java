package io.gpuwatch.notify.http;

import io.gpuwatch.notify.Redaction;
import io.gpuwatch.notify.retry.Outcome;

import java.net.ConnectException;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * How an HTTP receiver words what went wrong, the same way for every target: the target as its redacted URL,
 * a body excerpt flattened to one short line, and the receiver's secrets scrubbed from anything quoted. A
 * failed connection or a missing answer is worth retrying.
 */
public final class Failures {
    private final String target;
    private final long timeoutMs;
    private final List<String> secrets;
    private final int excerptChars;

    /**
     * @param target       the target as it may be shown (already redacted)
     * @param timeoutMs    the per-attempt deadline, named when it passes
     * @param secrets      strings never to quote
     * @param excerptChars how much of a response body an error quotes
     */
    public Failures(String target, long timeoutMs, Collection<String> secrets, int excerptChars) {
        this.target = target;
        this.timeoutMs = timeoutMs;
        this.secrets = List.copyOf(secrets);
        this.excerptChars = excerptChars;
    }

    /** The target as errors name it. */
    public String target() {
        return target;
    }

    /** A request that got no HTTP answer: no connection, no answer in time, or a broken exchange. */
    public Outcome transportError(Throwable e) {
        if (e instanceof TimeoutException) {
            return Outcome.retry("no response from " + target + " within " + timeoutMs + " ms");
        }
        String detail = e.getMessage() == null ? "" : ": " + scrub(e.getMessage());
        if (e instanceof ConnectException) {
            return Outcome.retry("could not connect to " + target + detail);
        }
        return Outcome.retry(e.getClass().getSimpleName() + " talking to " + target + detail);
    }

    /** {@code ": <start of body>"}, scrubbed and on one line; empty for an empty body. */
    public String excerpt(String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        String flat = scrub(body).replaceAll("[\\p{Cntrl}\\s]+", " ").trim();
        return ": " + (flat.length() > excerptChars ? flat.substring(0, excerptChars) + "…" : flat);
    }

    /** {@code text} with every secret replaced. */
    public String scrub(String text) {
        return Redaction.text(text, secrets);
    }
}
