package io.gpuwatch.probe.net;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;

/**
 * A {@link Dialer}'s TLS, in a class of its own: the verifier of a class that assigns an {@link SSLSocket} to a
 * socket loads the JDK's TLS classes, which a plain connection must not.
 */
final class Tls {
    private final SSLContext context;
    private final boolean checkHost;

    Tls(TlsTrust trust) throws IOException, GeneralSecurityException {
        if (trust.any()) {
            context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[]{new TrustAll()}, null);
        } else {
            context = trust.pem() == null ? SSLContext.getDefault() : trusting(trust.pem());
        }
        checkHost = !trust.any();
    }

    /** {@code plain} with a TLS session over it, handshaken, the server's host name checked unless trusting any. */
    Socket wrap(Socket plain, String host, int port) throws IOException {
        SSLSocket ssl = (SSLSocket) context.getSocketFactory().createSocket(plain, host, port, true);
        if (checkHost) {
            SSLParameters params = ssl.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            ssl.setSSLParameters(params);
        }
        ssl.startHandshake();
        return ssl;
    }

    /** A TLS context that trusts the PEM certificates in {@code pem}. */
    private static SSLContext trusting(Path pem) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(pem)) {
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("trusted-" + i++, c);
            }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    /** Accepts every server certificate: what an explicit insecure-skip-verify asks for. */
    private static final class TrustAll implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
            throw new UnsupportedOperationException("a client's trust manager checks no clients");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
            // any server: the configuration asked to skip verification
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
