package io.gpuwatch.probe.load;

import java.net.URI;
import java.net.URISyntaxException;

/** The gateway endpoint a load run connects its nodes to, and the bearer token they present. */
public record LoadTarget(String host, int port, String path, boolean ssl, String token) {
    /** The gateway's probe endpoint path (protocol v1). */
    public static final String PROBE_PATH = "/v1/probe";

    /**
     * Reads {@code ws://host:port[/path]}, {@code wss://…}, or {@code http(s)://…} (taken as ws(s)); the path
     * defaults to {@value #PROBE_PATH} and the port to 9464.
     *
     * @throws IllegalArgumentException starting with the URL and saying what is wrong with it
     */
    public static LoadTarget parse(String url, String token) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(url + ": not a URL (" + e.getReason() + ")");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase();
        boolean ssl = switch (scheme) {
            case "ws", "http" -> false;
            case "wss", "https" -> true;
            default -> throw new IllegalArgumentException(url + ": expected ws://, wss://, http:// or https://");
        };
        if (uri.getHost() == null) {
            throw new IllegalArgumentException(url + ": no host");
        }
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/")
                ? PROBE_PATH : uri.getRawPath();
        return new LoadTarget(uri.getHost(), uri.getPort() < 0 ? 9464 : uri.getPort(), path, ssl, token);
    }

    /** The endpoint as a URL, without the token. */
    public String url() {
        return (ssl ? "wss://" : "ws://") + host + ":" + port + path;
    }
}
