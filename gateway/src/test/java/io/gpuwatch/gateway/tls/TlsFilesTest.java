package io.gpuwatch.gateway.tls;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.ingest.IngestConfig;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** HTTPS from PEM files, and a renewed certificate served to the next connection without a restart. */
@ExtendWith(VertxExtension.class)
class TlsFilesTest {
    @TempDir
    Path dir;

    @Test
    void theGatewayServesItsCertificateAndARenewedOneWithoutARestart(Vertx vertx) throws Exception {
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        selfSigned("first", cert, key);
        List<String> problems = new ArrayList<>();
        TlsFiles tls = TlsFiles.read(cert, key, problems::add);
        assertTrue(problems.isEmpty(), problems.toString());
        RuleSet rules = RuleSet.parse("none.yml", "group: none\nlayer: device\nscope: card\nrules: []\n").ruleSet();
        Gateway g = new Gateway(new GatewayConfig("127.0.0.1", 0, IngestConfig.DEFAULTS, 3_600_000, "https://localhost"),
                rules, RuleFiles.none(), () -> null, List.of(), () -> Instant.EPOCH).tls(tls);
        await(vertx.deployVerticle(g));

        assertEquals("CN=first", served(g.port()));
        // a renewal writes the certificate, then the key: the moment between is not served
        Path nextKey = dir.resolve("next-key.pem");
        selfSigned("second", cert, nextKey);
        assertEquals(false, tls.check());
        assertEquals("CN=first", served(g.port()));
        Files.copy(nextKey, key, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertTrue(tls.check());
        long deadline = System.currentTimeMillis() + 10_000;
        while (!served(g.port()).equals("CN=second") && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
        assertEquals("CN=second", served(g.port()));
    }

    @Test
    void aFileThatIsNotPemIsNamed() throws Exception {
        Path cert = dir.resolve("cert.pem");
        Files.writeString(cert, "hello");
        List<String> problems = new ArrayList<>();
        assertNull(TlsFiles.read(cert, dir.resolve("missing.pem"), problems::add));
        assertEquals(2, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("--tls-cert " + cert + ": not a PEM file"), problems.get(0));
        assertTrue(problems.get(1).startsWith("--tls-key " + dir.resolve("missing.pem") + ": cannot read it"),
                problems.get(1));
    }

    /** The subject of the certificate the gateway on {@code port} presents, after a plain HTTPS request. */
    private static String served(int port) throws Exception {
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        try (SSLSocket s = (SSLSocket) ssl.getSocketFactory().createSocket("127.0.0.1", port)) {
            s.startHandshake();
            OutputStream out = s.getOutputStream();
            out.write("GET /-/healthy HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
            return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
        }
    }

    /** A self-signed certificate for {@code cn} from the JDK's keytool, written as PEM. */
    private void selfSigned(String cn, Path cert, Path key) throws Exception {
        Path store = dir.resolve(cn + ".p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "gw", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=" + cn, "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, output);
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, "changeit".toCharArray());
        }
        Base64.Encoder b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
        Files.writeString(cert, "-----BEGIN CERTIFICATE-----\n" + b64.encodeToString(ks.getCertificate("gw").getEncoded())
                + "\n-----END CERTIFICATE-----\n");
        Files.writeString(key, "-----BEGIN PRIVATE KEY-----\n"
                + b64.encodeToString(ks.getKey("gw", "changeit".toCharArray()).getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
