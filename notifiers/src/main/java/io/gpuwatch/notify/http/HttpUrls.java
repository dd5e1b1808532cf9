package io.gpuwatch.notify.http;

import io.gpuwatch.notify.Redaction;
import io.gpuwatch.notify.config.Fields;

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

    /** The URL in field {@code key} of {@code f} (required), what is wrong with it recorded there as a problem. */
    public static String read(Fields f, String key) {
        String url = f.string(key, true);
        String bad = url == null ? null : problem(url);
        if (bad != null) {
            f.problem(key, bad);
        }
        return url;
    }

    /**
     * The endpoint of a service hosted in the US and the EU: field {@code region} ({@code us}, the default, or
     * {@code eu}) picks {@code us} or {@code eu}, or field {@code url} gives another, read as {@link #read};
     * giving both is a problem.
     */
    public static String regional(Fields f, String us, String eu) {
        if (f.has("region") && f.has("url")) {
            f.problem("url", "give either region or url, not both");
            return us;
        }
        if (f.has("url")) {
            return read(f, "url");
        }
        if (f.has("region")) {
            String region = f.string("region", true);
            if ("eu".equalsIgnoreCase(region)) {
                return eu;
            }
            if (region != null && !"us".equalsIgnoreCase(region)) {
                f.problem("region", "must be us or eu, got " + region);
            }
        }
        return us;
    }
}
