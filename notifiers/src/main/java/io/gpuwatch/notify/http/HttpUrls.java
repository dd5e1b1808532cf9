package io.gpuwatch.notify.http;

import io.gpuwatch.notify.Redaction;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/** Checks a receiver's target URL the same way for every receiver, quoting it only redacted. */
public final class HttpUrls {
    private HttpUrls() {
    }

    /** Null when {@code url} is an absolute http(s) URL with a host; else what is wrong with it. */
    public static String problem(String url) {
        if (url == null || url.isBlank()) {
            return "is required";
        }
        try {
            URI uri = new URI(url);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                return "must start with http:// or https:// (got " + Redaction.url(url) + ")";
            }
            return uri.getHost() == null ? "has no host (got " + Redaction.url(url) + ")" : null;
        } catch (URISyntaxException e) {
            return "is not a valid URL (" + e.getReason() + " at index " + e.getIndex() + ")";
        }
    }
}
