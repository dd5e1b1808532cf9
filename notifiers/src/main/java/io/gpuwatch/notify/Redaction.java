package io.gpuwatch.notify;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collection;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hides what must never reach a log: webhook paths and query strings routinely carry the credential
 * (Slack, Teams {@code sig=}, WeCom {@code key=}), so a URL is shown only as {@code scheme://host[:port]/…}.
 */
public final class Redaction {
    private static final String HIDDEN = "…";
    private static final Pattern URL = Pattern.compile(
            "\\b([a-zA-Z][a-zA-Z0-9+.-]*)://([^\\s/?#\"'<>(),]*)([/?#][^\\s\"'<>]*)?");

    private Redaction() {
    }

    /** {@code scheme://host[:port]/…}, or a placeholder when the text is not a URL with a host. */
    public static String url(String url) {
        if (url == null) {
            return "(no URL)";
        }
        try {
            URI uri = new URI(url.trim());
            if (uri.getScheme() != null && uri.getHost() != null) {
                boolean bare = (uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))
                        && uri.getRawQuery() == null && uri.getRawFragment() == null;
                return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() >= 0 ? ":" + uri.getPort() : "")
                        + (bare ? "" : "/" + HIDDEN);
            }
        } catch (URISyntaxException e) {
            // not a URI at all: fall through to the placeholder, never echo it
        }
        return "(unparseable URL)";
    }

    /**
     * The text with every given secret replaced and every URL in it cut to {@code scheme://host[:port]/…}.
     * Longer secrets go first, so a secret that contains another is hidden whole.
     */
    public static String text(String text, Collection<String> secrets) {
        if (text == null) {
            return "";
        }
        String out = text;
        for (String secret : secrets.stream().filter(s -> s != null && s.length() > 1)
                .sorted(Comparator.comparingInt(String::length).reversed()).toList()) {
            out = out.replace(secret, HIDDEN);
        }
        Matcher m = URL.matcher(out);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String authority = m.group(2);
            String host = authority.substring(authority.lastIndexOf('@') + 1);
            String rest = m.group(3);
            boolean bare = rest == null || rest.equals("/");
            m.appendReplacement(sb, Matcher.quoteReplacement(m.group(1) + "://" + host + (bare ? "" : "/" + HIDDEN)));
        }
        m.appendTail(sb);
        return sb.toString();
    }
}
