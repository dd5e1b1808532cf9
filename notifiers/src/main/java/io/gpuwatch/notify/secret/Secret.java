package io.gpuwatch.notify.secret;

import java.util.Objects;

/**
 * A resolved secret (a token, a signing key, a URL with a key in it) and where it came from. Its
 * {@code toString} names only the source, so a secret printed by mistake shows {@code <secret from env X>}.
 */
public final class Secret {
    private final String value;
    private final String source;

    Secret(String value, String source) {
        this.value = Objects.requireNonNull(value, "value");
        this.source = Objects.requireNonNull(source, "source");
    }

    /** The secret itself: put it on the wire, never in a log line or an error. */
    public String reveal() {
        return value;
    }

    /** Where it was read from, e.g. {@code env SLACK_URL} or {@code file /run/secrets/pd}. */
    public String source() {
        return source;
    }

    /** A secret held directly, for tests and for callers that resolved it themselves. */
    public static Secret of(String value, String source) {
        return new Secret(value, source);
    }

    @Override
    public String toString() {
        return "<secret from " + source + ">";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Secret s && s.value.equals(value) && s.source.equals(source);
    }

    @Override
    public int hashCode() {
        return Objects.hash(value, source);
    }
}
