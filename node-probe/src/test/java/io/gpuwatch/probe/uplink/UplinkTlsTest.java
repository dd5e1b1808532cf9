package io.gpuwatch.probe.uplink;

import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An uplink to a wss:// gateway: it trusts the --trust certificate, and no other for a self-signed one. */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class UplinkTlsTest {
    static final long NOW = 1_764_700_000_000L;
    private static final String UUID = "GPU-3f1c0000-0000-0000-0000-000000000001";
    @TempDir
    static Path dir;
    private static Path cert;
    private static Path key;
    private TestGateway gateway;
    private int port;

    static Hello hello() {
        return new Hello(Frame.VERSION, "gpu-a17", "5b2f-boot", "test-probe/1", null, null, Map.of(),
                List.of(new CardInfo(UUID, 0, "NVIDIA H100 80GB HBM3", "00000000:1B:00.0", 85_520_809_984L, 700.0,
                        1980, false)));
    }

    Uplink uplink(Vertx vertx, UplinkConfig config) {
        return new Uplink(vertx, config, hello(), () -> NOW, new SplittableRandom(7));
    }

    /** A self-signed certificate for localhost from the JDK's keytool, written as PEM. */
    @BeforeAll
    static void selfSigned() throws Exception {
        cert = dir.resolve("cert.pem");
        key = dir.resolve("key.pem");
        Path store = dir.resolve("gw.p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "gw", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "SAN=dns:localhost", "-storetype", "PKCS12",
                "-keystore", store.toString(), "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
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

    @BeforeEach
    void up(Vertx vertx, VertxTestContext ctx) {
        gateway = new TestGateway(vertx);
        gateway.start(new HttpServerOptions().setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
                .setCertPath(cert.toString()).setKeyPath(key.toString()))).onComplete(ctx.succeeding(p -> {
            port = p;
            ctx.completeNow();
        }));
    }

    private UplinkConfig config(String trust) {
        return UplinkConfig.of(List.of(URI.create("wss://localhost:" + port)), TestGateway.TOKEN, trust)
                .withBackoff(new Backoff(10, 40));
    }

    @Test
    void trustsTheGivenCertificateAndSendsOverTls(Vertx vertx, VertxTestContext ctx) {
        Uplink up = uplink(vertx, config(cert.toString()));
        up.start();
        up.send(new Event(0, NOW, UUID, "xid", 79, "Xid 79", null));
        Await.until(vertx, "the event acknowledged over TLS", () -> up.stats().ackedSeq() == 1)
                .compose(v -> up.close())
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(List.of(1L), gateway.connections.get(0).seqs());
                    ctx.completeNow();
                })));
    }

    @Test
    void refusesASelfSignedGatewayItWasNotToldToTrust(Vertx vertx, VertxTestContext ctx) {
        Uplink up = uplink(vertx, config(null));
        up.start();
        Await.until(vertx, "a few failed attempts", () -> up.stats().reconnects() >= 3)
                .compose(v -> up.close())
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertFalse(up.stats().connected());
                    assertEquals(List.of(), gateway.connections, "no WebSocket is opened over an untrusted TLS");
                    ctx.completeNow();
                })));
    }
}
