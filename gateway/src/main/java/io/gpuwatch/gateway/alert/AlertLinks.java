package io.gpuwatch.gateway.alert;

import java.net.URI;

/**
 * The links an alert carries to its reader: {@code generatorURL} to the alert in this gateway
 * ({@code <externalUrl>/api/v1/alerts/<fingerprint>}) and its rule's runbook as a URL, the rule's runbook path
 * joined to {@code runbookBaseUrl} (null or empty: the path as the rule wrote it). A runbook that is already an
 * absolute URL is kept as it is.
 */
public record AlertLinks(String externalUrl, String runbookBaseUrl) {
    public AlertLinks {
        externalUrl = externalUrl == null ? "" : trimSlash(externalUrl);
        runbookBaseUrl = runbookBaseUrl == null ? "" : runbookBaseUrl;
    }

    /** Links to {@code externalUrl}, with runbooks as their rules write them. */
    public static AlertLinks of(String externalUrl) {
        return new AlertLinks(externalUrl, null);
    }

    /** Where a reader finds alert {@code fingerprint} in this gateway; empty without an external URL. */
    public String generatorUrl(String fingerprint) {
        return externalUrl.isEmpty() ? "" : externalUrl + "/api/v1/alerts/" + fingerprint;
    }

    /** The runbook link for a rule's {@code runbook} field, e.g. {@code docs/runbooks.md#xid-reset-gpu}. */
    public String runbook(String path) {
        if (runbookBaseUrl.isEmpty() || isAbsolute(path)) {
            return path;
        }
        String base = runbookBaseUrl.endsWith("/") ? runbookBaseUrl : runbookBaseUrl + "/";
        return base + (path.startsWith("/") ? path.substring(1) : path);
    }

    private static boolean isAbsolute(String path) {
        try {
            return URI.create(path).isAbsolute();
        } catch (IllegalArgumentException e) {
            // a path with characters a URI may not hold is still a path to join
            return false;
        }
    }

    private static String trimSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
