package io.gpuwatch.probe.http;

import io.gpuwatch.probe.net.Dialer;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A small blocking HTTP/1.1 GET client on the JDK's sockets, for the probe's few fetches of a few KB every few
 * seconds (inference servers' metrics, the kubelet's pod list): Vert.x's client brought some 18 MiB of Vert.x
 * and Netty into the probe for them (docs/performance.md#node-probe). It sends a GET with the caller's headers,
 * reads a {@code Content-Length}, chunked or close-delimited body up to a size limit within one deadline for the
 * whole exchange, and keeps one idle connection per server for the next fetch. Every failure is a
 * {@link Fetched.Failed}; nothing is thrown. Safe for use from several threads.
 */
public final class HttpGet implements AutoCloseable {
    /** The longest status or header line, and the most header bytes, taken from a server. */
    private static final int MAX_LINE = 8 * 1024;
    private static final int MAX_HEAD = 64 * 1024;
    /** An answer over this is not kept alive: reading it to its end would cost more than a new connection. */
    private static final int MAX_DRAIN = 64 * 1024;

    /** Reads a whole body; the stream ends where the body ends. */
    @FunctionalInterface
    public interface BodyReader<T> {
        T read(InputStream body) throws IOException;
    }

    private final Dialer dialer;
    private final long timeoutMs;
    private final long maxBodyBytes;
    private final Map<String, Socket> idle = new HashMap<>();
    private boolean closed;

    /**
     * @param timeoutMs    deadline of one fetch, connecting and TLS included
     * @param maxBodyBytes larger bodies are a failure
     */
    public HttpGet(Dialer dialer, long timeoutMs, long maxBodyBytes) {
        this.dialer = dialer;
        this.timeoutMs = timeoutMs;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** Whether {@code url} is one this client fetches: {@code http://} or {@code https://} with a host. */
    public static boolean fetchable(URI url) {
        return ("http".equals(url.getScheme()) || "https".equals(url.getScheme())) && url.getHost() != null;
    }

    /**
     * GETs {@code url} (http or https) with {@code headers} and reads a 200 answer's body with {@code reader}; an
     * answer with another status is a failure ({@code answered HTTP 503}), and so is any exception of the reader.
     */
    public <T> Fetched<T> get(URI url, Map<String, String> headers, BodyReader<T> reader) {
        if (!fetchable(url)) {
            return new Fetched.Failed<>("not an http:// or https:// URL with a host");
        }
        String scheme = url.getScheme();
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getValue().indexOf('\r') >= 0 || h.getValue().indexOf('\n') >= 0) {
                return new Fetched.Failed<>("the " + h.getKey() + " header has a line break");
            }
        }
        boolean ssl = scheme.equals("https");
        int port = url.getPort() > 0 ? url.getPort() : ssl ? 443 : 80;
        String origin = scheme + "://" + url.getHost() + ":" + port;
        byte[] request = request(url, port, ssl, headers);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        Socket reused = take(origin);
        if (reused != null) {
            Exchange<T> e = exchange(reused, request, deadline, reader);
            if (!e.retry) {
                return finish(origin, reused, e);
            }
            Dialer.closeQuietly(reused);
        }
        Socket fresh;
        try {
            fresh = dialer.open(url.getHost(), port, ssl, remainingMs(deadline));
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            // RuntimeException: a port out of range, which a URI allows and a socket address does not
            return new Fetched.Failed<>(connectFailure(e));
        }
        return finish(origin, fresh, exchange(fresh, request, deadline, reader));
    }

    /** Closes the idle connections; a fetch after this still works, on a connection of its own. */
    @Override
    public void close() {
        synchronized (idle) {
            closed = true;
            idle.values().forEach(Dialer::closeQuietly);
            idle.clear();
        }
    }

    private <T> Fetched<T> finish(String origin, Socket socket, Exchange<T> e) {
        if (e.reusable) {
            synchronized (idle) {
                if (!closed && idle.putIfAbsent(origin, socket) == null) {
                    return e.result;
                }
            }
        }
        Dialer.closeQuietly(socket);
        return e.result;
    }

    private Socket take(String origin) {
        synchronized (idle) {
            return idle.remove(origin);
        }
    }

    private static byte[] request(URI url, int port, boolean ssl, Map<String, String> headers) {
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        StringBuilder b = new StringBuilder(256).append("GET ").append(path);
        if (url.getRawQuery() != null) {
            b.append('?').append(url.getRawQuery());
        }
        b.append(" HTTP/1.1\r\nHost: ").append(url.getHost());
        if (port != (ssl ? 443 : 80)) {
            b.append(':').append(port);
        }
        b.append("\r\nUser-Agent: gpuwatch-probe\r\n");
        headers.forEach((k, v) -> b.append(k).append(": ").append(v).append("\r\n"));
        return b.append("\r\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * What one request on one connection gave: the result; whether it failed before any of the answer came, not
     * for want of time (a kept-alive connection the server has closed meanwhile: a GET may be sent again on a
     * new one); and whether the connection may carry the next request.
     */
    private record Exchange<T>(Fetched<T> result, boolean retry, boolean reusable) {
        static <T> Exchange<T> failed(String why, boolean retry) {
            return new Exchange<>(new Fetched.Failed<>(why), retry, false);
        }
    }

    private <T> Exchange<T> exchange(Socket socket, byte[] request, long deadline, BodyReader<T> reader) {
        boolean answered = false;
        try {
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            BufferedInputStream buffered = new BufferedInputStream(new Deadline(socket, deadline), 8 * 1024);
            Head head = Head.read(buffered);
            if (head == null) {
                return Exchange.failed("the connection closed before an answer", true);
            }
            answered = true;
            if (head.status != 200) {
                Body rest = head.body(buffered, MAX_DRAIN);
                boolean drained = rest != null && drain(rest);
                return new Exchange<>(new Fetched.Failed<>("answered HTTP " + head.status), false,
                        drained && head.keepAlive());
            }
            String encoding = head.headers.get("content-encoding");
            if (encoding != null && !encoding.equalsIgnoreCase("identity")) {
                return Exchange.failed("answered with Content-Encoding " + encoding + ", which was not asked for",
                        false);
            }
            Body body = head.body(buffered, maxBodyBytes);
            if (body == null) {
                return Exchange.failed("the answer is larger than " + size(maxBodyBytes), false);
            }
            T value = reader.read(body);
            // a reader may stop at the end of its document, before a trailing newline or the last chunk's end
            boolean ended = drain(body);
            return new Exchange<>(new Fetched.Ok<>(value), false, ended && head.keepAlive());
        } catch (BodyTooLarge e) {
            return Exchange.failed("the answer is larger than " + size(maxBodyBytes), false);
        } catch (SocketTimeoutException e) {
            return Exchange.failed("no answer within " + timeoutMs + "ms", false);
        } catch (IOException | RuntimeException e) {
            String why = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
            return Exchange.failed(why, !answered);
        }
    }

    /** Reads what is left of a small body so that the connection can carry the next request. */
    private static boolean drain(Body body) throws IOException {
        try {
            return body.drainedTo(MAX_DRAIN);
        } catch (BodyTooLarge e) {
            return false;
        }
    }

    private String connectFailure(Exception e) {
        if (e instanceof SocketTimeoutException) {
            return "cannot connect within " + timeoutMs + "ms";
        }
        if (e instanceof ConnectException || e instanceof UnknownHostException) {
            return "cannot connect: " + (e instanceof UnknownHostException ? "unknown host " : "") + e.getMessage();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    private static int remainingMs(long deadline) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (deadline - System.nanoTime()) / 1_000_000));
    }

    private static String size(long bytes) {
        return bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : bytes + " bytes";
    }

    /** A body over the size limit. */
    private static final class BodyTooLarge extends IOException {
        BodyTooLarge() {
            super("the answer is over its size limit");
        }
    }

    /** The socket's input, each read given what is left of the fetch's deadline. */
    private static final class Deadline extends InputStream {
        private final Socket socket;
        private final InputStream in;
        private final long deadline;

        Deadline(Socket socket, long deadline) throws IOException {
            this.socket = socket;
            this.in = socket.getInputStream();
            this.deadline = deadline;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (deadline - System.nanoTime() <= 0) {
                throw new SocketTimeoutException("deadline passed");
            }
            socket.setSoTimeout(remainingMs(deadline));
            return in.read(b, off, len);
        }
    }

    /** A response's status line and headers (names in lower case; a repeated one keeps its last value). */
    private record Head(int status, boolean http11, Map<String, String> headers) {
        /** The head, or null when the connection ended before any of it. */
        static Head read(InputStream in) throws IOException {
            String status;
            Map<String, String> headers = new HashMap<>();
            int total = 0;
            do {
                status = line(in, true);
                if (status == null) {
                    return null;
                }
                headers.clear();
                for (String line = line(in, false); !line.isEmpty(); line = line(in, false)) {
                    total += line.length();
                    if (total > MAX_HEAD) {
                        throw new IOException("the answer's headers are over " + MAX_HEAD / 1024 + " KiB");
                    }
                    int colon = line.indexOf(':');
                    if (colon <= 0) {
                        throw new IOException("malformed header line '" + shorten(line) + "'");
                    }
                    headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                            line.substring(colon + 1).trim());
                }
            } while (informational(status));
            String[] parts = status.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/1.") || parts[1].length() != 3) {
                throw new IOException("not an HTTP/1.x status line: '" + shorten(status) + "'");
            }
            int code;
            try {
                code = Integer.parseInt(parts[1]);
            } catch (NumberFormatException e) {
                throw new IOException("not an HTTP/1.x status line: '" + shorten(status) + "'");
            }
            return new Head(code, !parts[0].equals("HTTP/1.0"), headers);
        }

        private static boolean informational(String status) {
            return status.startsWith("HTTP/1.1 1") && !status.startsWith("HTTP/1.1 101");
        }

        /** The connection may carry another request once this answer's body has been read. */
        boolean keepAlive() {
            String connection = headers.getOrDefault("connection", "").toLowerCase(Locale.ROOT);
            boolean framed = headers.containsKey("content-length") || chunked();
            return http11 && framed && !connection.contains("close");
        }

        private boolean chunked() {
            return headers.getOrDefault("transfer-encoding", "").toLowerCase(Locale.ROOT).contains("chunked");
        }

        /** The body as a stream of at most {@code max} bytes, or null when its declared length is over that. */
        Body body(InputStream in, long max) throws IOException {
            if (status == 204 || status == 304) {
                return new Body(in, 0, false, max);
            }
            if (chunked()) {
                return new Body(in, -1, true, max);
            }
            String length = headers.get("content-length");
            if (length == null) {
                return new Body(in, -1, false, max);
            }
            long n;
            try {
                n = Long.parseLong(length);
            } catch (NumberFormatException e) {
                throw new IOException("malformed Content-Length '" + shorten(length) + "'");
            }
            if (n < 0) {
                throw new IOException("malformed Content-Length '" + length + "'");
            }
            return n > max ? null : new Body(in, n, false, max);
        }
    }

    /** One line of the head, without its CRLF (a bare LF is taken too); null at the end of the stream if allowed. */
    private static String line(InputStream in, boolean endAllowed) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(64);
        while (true) {
            int c = in.read();
            if (c < 0) {
                if (endAllowed && b.size() == 0) {
                    return null;
                }
                throw new EOFException("the connection closed inside the answer's head");
            }
            if (c == '\n') {
                byte[] bytes = b.toByteArray();
                int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
            }
            if (b.size() >= MAX_LINE) {
                throw new IOException("a line of the answer's head is over " + MAX_LINE / 1024 + " KiB");
            }
            b.write(c);
        }
    }

    private static String shorten(String s) {
        return s.length() <= 60 ? s : s.substring(0, 60) + "…";
    }

    /**
     * A response body: {@code length} bytes, chunks up to the last one, or (neither) everything up to the end of
     * the connection; more than {@code max} bytes in all throw {@link BodyTooLarge}.
     */
    private static final class Body extends InputStream {
        private final InputStream in;
        private final boolean chunked;
        private final long max;
        private long left;
        private long total;
        private boolean ended;

        Body(InputStream in, long length, boolean chunked, long max) {
            this.in = in;
            this.chunked = chunked;
            this.max = max;
            this.left = chunked ? 0 : length;
            this.ended = length == 0 && !chunked;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (ended || chunked && left == 0 && !nextChunk()) {
                return -1;
            }
            int want = left < 0 ? len : (int) Math.min(len, left);
            int n = in.read(b, off, want);
            if (n < 0) {
                if (left < 0) {
                    ended = true;
                    return -1;
                }
                throw new EOFException("the connection closed inside the answer's body");
            }
            total += n;
            if (total > max) {
                throw new BodyTooLarge();
            }
            if (left > 0) {
                left -= n;
                if (left == 0 && !chunked) {
                    ended = true;
                }
            }
            return n;
        }

        /** Starts the next chunk: false after the last one (and its trailers) has been read. */
        private boolean nextChunk() throws IOException {
            if (total > 0) {
                String end = line(in, false);
                if (!end.isEmpty()) {
                    throw new IOException("a chunk does not end where its size says");
                }
            }
            String size = line(in, false);
            int semicolon = size.indexOf(';');
            String hex = (semicolon >= 0 ? size.substring(0, semicolon) : size).trim();
            long n;
            try {
                n = Long.parseLong(hex, 16);
            } catch (NumberFormatException e) {
                throw new IOException("malformed chunk size '" + shorten(size) + "'");
            }
            if (n < 0 || n > max - total) {
                throw n < 0 ? new IOException("malformed chunk size '" + shorten(size) + "'") : new BodyTooLarge();
            }
            if (n == 0) {
                String trailer;
                do {
                    trailer = line(in, false); // trailers carry nothing this client uses
                } while (!trailer.isEmpty());
                ended = true;
                return false;
            }
            left = n;
            return true;
        }

        /**
         * Reads the body to its end if at most {@code most} bytes are left of it: true when it has ended (the
         * connection is then at the next answer), false when more is left or it runs to the connection's end.
         */
        boolean drainedTo(long most) throws IOException {
            if (!chunked && left < 0) {
                return false;
            }
            byte[] skip = new byte[1024];
            long read = 0;
            while (!ended) {
                int n = read(skip, 0, skip.length);
                if (n < 0) {
                    break;
                }
                read += n;
                if (read > most) {
                    return false;
                }
            }
            return ended;
        }
    }
}
