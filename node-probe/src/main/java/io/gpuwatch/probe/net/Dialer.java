package io.gpuwatch.probe.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.GeneralSecurityException;

/**
 * Opens the probe's blocking client connections: TCP, with TLS over it for {@code https://} and {@code wss://}.
 * The TLS side is made on the first TLS connection, so that a probe with only plain ones never loads the JDK's
 * TLS classes (about 9 MiB of its RSS, docs/performance.md#node-probe).
 */
public final class Dialer {
    private final TlsTrust trust;
    private Tls tls;

    public Dialer(TlsTrust trust) {
        this.trust = trust;
    }

    /**
     * A socket connected to {@code host:port} within {@code timeoutMs}, with that read timeout; over TLS when
     * {@code ssl}, handshaken, and the certificate checked against the trust and the host name.
     *
     * @param host a name or an address (an IPv6 one with or without its brackets)
     */
    public Socket open(String host, int port, boolean ssl, int timeoutMs) throws IOException, GeneralSecurityException {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(bare, port), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            return ssl ? tls().wrap(socket, bare, port) : socket;
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            closeQuietly(socket);
            throw e;
        }
    }

    private synchronized Tls tls() throws IOException, GeneralSecurityException {
        if (tls == null) {
            tls = new Tls(trust);
        }
        return tls;
    }

    /** Closes {@code socket} (null is fine), ignoring a failure: the connection is being given up anyway. */
    public static void closeQuietly(Socket socket) {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // giving the connection up: nothing else to do
            }
        }
    }
}
