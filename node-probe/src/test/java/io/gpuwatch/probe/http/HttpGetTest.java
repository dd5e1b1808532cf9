package io.gpuwatch.probe.http;

import io.gpuwatch.probe.net.Dialer;
import io.gpuwatch.probe.net.TlsTrust;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The blocking GET client against a scripted server that writes each answer byte for byte. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class HttpGetTest {
    private static final String METRICS = read("vllm-1.txt");
    private static final HttpGet.BodyReader<String> TEXT = in -> new String(in.readAllBytes(), StandardCharsets.UTF_8);

    /** How the server answers one request on a connection: false closes the connection afterwards. */
    @FunctionalInterface
    interface Answer {
        boolean write(int connection, String request, OutputStream out) throws IOException, InterruptedException;
    }

    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private ServerSocket server;
    private HttpGet http;

    private static String read(String fixture) {
        try {
            return Files.readString(Path.of("src", "test", "resources", "scrape", fixture));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @AfterEach
    void close() throws IOException {
        if (http != null) {
            http.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** A server on a loopback port answering every request with {@code answer}, a thread per connection. */
    private URI serve(Answer answer) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    int n = connections.incrementAndGet();
                    Thread t = new Thread(() -> converse(s, n, answer), "fake-http-" + n);
                    t.setDaemon(true);
                    t.start();
                } catch (IOException closed) {
                    return;
                }
            }
        }, "fake-http-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/metrics?x=1");
    }

    private void converse(Socket s, int n, Answer answer) {
        try (s) {
            InputStream in = s.getInputStream();
            while (true) {
                String head = head(in);
                if (head == null) {
                    return;
                }
                requests.add(head);
                if (!answer.write(n, head, s.getOutputStream())) {
                    return;
                }
            }
        } catch (IOException | InterruptedException e) {
            // the client went away: the conversation is over
        }
    }

    private static String head(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (true) {
            int c = in.read();
            if (c < 0) {
                return null;
            }
            b.write(c);
            String s = b.toString(StandardCharsets.ISO_8859_1);
            if (s.endsWith("\r\n\r\n")) {
                return s;
            }
        }
    }

    private static boolean write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
        return true;
    }

    private static String withLength(String body) {
        return "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    private HttpGet client(long timeoutMs, long maxBody) {
        http = new HttpGet(new Dialer(TlsTrust.JVM), timeoutMs, maxBody);
        return http;
    }

    @Test
    void aContentLengthBodyIsReadAndTheRequestCarriesTheHeaders() throws Exception {
        URI url = serve((n, req, out) -> write(out, withLength(METRICS)));
        Fetched<String> got = client(3_000, 1 << 20).get(url, Map.of("Authorization", "Bearer s3cret"), TEXT);
        assertEquals(new Fetched.Ok<>(METRICS), got);
        String req = requests.get(0);
        assertTrue(req.startsWith("GET /metrics?x=1 HTTP/1.1\r\nHost: 127.0.0.1:" + url.getPort() + "\r\n"), req);
        assertTrue(req.contains("\r\nAuthorization: Bearer s3cret\r\n"), req);
    }

    @Test
    void aChunkedBodyIsJoinedAndItsTrailersSkipped() throws Exception {
        String a = METRICS.substring(0, 1000);
        String b = METRICS.substring(1000);
        URI url = serve((n, req, out) -> write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + Integer.toHexString(a.length()) + ";name=value\r\n" + a + "\r\n"
                + Integer.toHexString(b.getBytes(StandardCharsets.UTF_8).length) + "\r\n" + b + "\r\n"
                + "0\r\nX-Trailer: yes\r\n\r\n"));
        HttpGet get = client(3_000, 1 << 20);
        assertEquals(new Fetched.Ok<>(METRICS), get.get(url, Map.of(), TEXT));
        // the connection ended cleanly at the last chunk: the next fetch reuses it
        assertEquals(new Fetched.Ok<>(METRICS), get.get(url, Map.of(), TEXT));
        assertEquals(1, connections.get());
    }

    @Test
    void aBodyUpToTheConnectionsEndIsReadAndTheConnectionNotKept() throws Exception {
        URI url = serve((n, req, out) -> write(out, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" + METRICS)
                && false);
        HttpGet get = client(3_000, 1 << 20);
        assertEquals(new Fetched.Ok<>(METRICS), get.get(url, Map.of(), TEXT));
        assertEquals(new Fetched.Ok<>(METRICS), get.get(url, Map.of(), TEXT));
        assertEquals(2, connections.get());
    }

    @Test
    void keptAliveConnectionsCarryTheNextFetches() throws Exception {
        URI url = serve((n, req, out) -> write(out, withLength("n " + n + "\n")));
        HttpGet get = client(3_000, 1 << 20);
        for (int i = 0; i < 3; i++) {
            assertEquals(new Fetched.Ok<>("n 1\n"), get.get(url, Map.of(), TEXT));
        }
        assertEquals(1, connections.get());
    }

    @Test
    void aKeptConnectionTheServerHasClosedIsReplacedWithoutAFailure() throws Exception {
        // like uvicorn after its 5 s keep-alive: answers as if it kept the connection, then closes it
        URI url = serve((n, req, out) -> write(out, withLength("n " + n + "\n")) && false);
        HttpGet get = client(3_000, 1 << 20);
        assertEquals(new Fetched.Ok<>("n 1\n"), get.get(url, Map.of(), TEXT));
        Thread.sleep(100);
        assertEquals(new Fetched.Ok<>("n 2\n"), get.get(url, Map.of(), TEXT));
    }

    @Test
    void anotherStatusIsAFailureAndAShortBodyKeepsTheConnection() throws Exception {
        URI url = serve((n, req, out) -> write(out, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 10\r\n\r\n"
                + "overloaded"));
        HttpGet get = client(3_000, 1 << 20);
        assertEquals(new Fetched.Failed<>("answered HTTP 503"), get.get(url, Map.of(), TEXT));
        assertEquals(new Fetched.Failed<>("answered HTTP 503"), get.get(url, Map.of(), TEXT));
        assertEquals(1, connections.get());
    }

    @Test
    void aBodyOverTheLimitIsAFailureByLengthOrByChunks() throws Exception {
        URI url = serve((n, req, out) -> n == 1 ? write(out, withLength(METRICS))
                : write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "400\r\n" + "x".repeat(1024) + "\r\n400\r\n" + "x".repeat(1024) + "\r\n0\r\n\r\n"));
        HttpGet get = client(3_000, 1_500);
        assertEquals(new Fetched.Failed<>("the answer is larger than 1500 bytes"), get.get(url, Map.of(), TEXT));
        assertEquals(new Fetched.Failed<>("the answer is larger than 1500 bytes"), get.get(url, Map.of(), TEXT));
        assertEquals(2, connections.get());
    }

    @Test
    void noAnswerInTimeIsAFailureWithinTheDeadline() throws Exception {
        URI url = serve((n, req, out) -> {
            Thread.sleep(5_000);
            return false;
        });
        long start = System.nanoTime();
        assertEquals(new Fetched.Failed<>("no answer within 200ms"), client(200, 1 << 20).get(url, Map.of(), TEXT));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(ms >= 190 && ms < 2_000, ms + " ms");
    }

    @Test
    void aBodyThatTricklesPastTheDeadlineFails() throws Exception {
        URI url = serve((n, req, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n");
            for (int i = 0; i < 100; i++) {
                write(out, "x");
                Thread.sleep(20);
            }
            return false;
        });
        long start = System.nanoTime();
        assertEquals(new Fetched.Failed<>("no answer within 300ms"), client(300, 1 << 20).get(url, Map.of(), TEXT));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 1_500);
    }

    @Test
    void aRefusedConnectionIsAFailureThatSaysSo() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Fetched<String> got = client(3_000, 1 << 20).get(URI.create("http://127.0.0.1:" + port + "/"), Map.of(), TEXT);
        assertTrue(got instanceof Fetched.Failed<String> f && f.why().startsWith("cannot connect: "), got::toString);
    }

    @Test
    void aUrlNoSocketCanReachIsAFailure() {
        HttpGet get = client(3_000, 1 << 20);
        assertEquals(new Fetched.Failed<>("not an http:// or https:// URL with a host"),
                get.get(URI.create("ftp://127.0.0.1/metrics"), Map.of(), TEXT));
        assertTrue(get.get(URI.create("http://127.0.0.1:70000/metrics"), Map.of(), TEXT) instanceof Fetched.Failed);
    }

    @Test
    void malformedAnswersAreFailuresNotExceptions() throws Exception {
        List<String> answers = List.of(
                "SSH-2.0-OpenSSH_9.6\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nxx\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n",
                "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort",
                "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\nxx",
                "HTTP/1.1 200 OK\r\nX-Long: " + "a".repeat(9_000) + "\r\n\r\n");
        URI url = serve((n, req, out) -> write(out, answers.get(n - 1)) && false);
        HttpGet get = client(3_000, 1 << 20);
        List<String> why = List.of(
                "not an HTTP/1.x status line: 'SSH-2.0-OpenSSH_9.6'",
                "malformed chunk size 'zz'",
                "malformed Content-Length 'ten'",
                "malformed header line 'no colon here'",
                "the connection closed inside the answer's body",
                "answered with Content-Encoding gzip, which was not asked for",
                "a line of the answer's head is over 8 KiB");
        for (String w : why) {
            assertEquals(new Fetched.Failed<>(w), get.get(url, Map.of(), TEXT));
        }
    }

    @Test
    void aReaderThatThrowsIsAFailure() throws Exception {
        URI url = serve((n, req, out) -> write(out, withLength(METRICS)));
        Fetched<String> got = client(3_000, 1 << 20).get(url, Map.of(), in -> {
            throw new IOException("not the document expected");
        });
        assertEquals(new Fetched.Failed<>("not the document expected"), got);
    }

    @Test
    void aHeaderWithALineBreakIsNotSent() throws Exception {
        URI url = serve((n, req, out) -> write(out, withLength(METRICS)));
        assertEquals(new Fetched.Failed<>("the Authorization header has a line break"),
                client(3_000, 1 << 20).get(url, Map.of("Authorization", "Bearer a\r\nX-Evil: 1"), TEXT));
        assertEquals(0, connections.get());
    }
}
