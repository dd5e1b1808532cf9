package io.gpuwatch.gateway.tls;

import io.gpuwatch.gateway.reload.WatchedFile;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The gateway's certificate chain and private key, from PEM files, read again when either changes, so a renewed
 * certificate is served to new connections without a restart (connections already open keep theirs).
 */
public final class TlsFiles {
    private final WatchedFile<Buffer> cert;
    private final WatchedFile<Buffer> key;
    private static final Logger LOG = Logger.getLogger(TlsFiles.class.getName());

    private final List<Consumer<PemKeyCertOptions>> listeners = new ArrayList<>();
    /** A change was read whose key and certificate did not match yet. */
    private boolean pending;

    private TlsFiles(WatchedFile<Buffer> cert, WatchedFile<Buffer> key) {
        this.cert = cert;
        this.key = key;
    }

    /** Reads both files now; null after telling {@code problems} what is wrong with them. */
    public static TlsFiles read(Path certFile, Path keyFile, Consumer<String> problems) {
        WatchedFile<Buffer> cert = WatchedFile.read(certFile, (f, p) -> pem(f, "CERTIFICATE", "--tls-cert", p), problems);
        WatchedFile<Buffer> key = WatchedFile.read(keyFile, (f, p) -> pem(f, "PRIVATE KEY", "--tls-key", p), problems);
        return cert == null || key == null ? null : new TlsFiles(cert, key);
    }

    /** The PEM text of {@code file}, or null after saying it is not a PEM file holding {@code what}. */
    private static Buffer pem(Path file, String what, String option, Consumer<String> problems) {
        try {
            String text = Files.readString(file);
            if (!text.contains("-----BEGIN ") || !text.contains(what + "-----")) {
                problems.accept(option + " " + file + ": not a PEM file with a " + what + " block (-----BEGIN ..."
                        + what + "-----)");
                return null;
            }
            return Buffer.buffer(text);
        } catch (IOException e) {
            problems.accept(option + " " + file + ": cannot read it: " + e.getMessage());
            return null;
        }
    }

    /** The chain and key in force, as the HTTP server takes them. */
    public PemKeyCertOptions options() {
        return new PemKeyCertOptions().setCertValue(cert.get()).setKeyValue(key.get());
    }

    /** Runs {@code listener} with the new chain and key each time either file changes. */
    public TlsFiles onChange(Consumer<PemKeyCertOptions> listener) {
        listeners.add(listener);
        return this;
    }

    /** Looks at both files every {@code interval} (zero: never) on {@code vertx}'s workers. */
    public TlsFiles watch(Vertx vertx, Duration interval) {
        if (!interval.isZero()) {
            vertx.setPeriodic(interval.toMillis(), id -> vertx.executeBlocking(this::check));
        }
        return this;
    }

    /**
     * Reads the files again if either changed, and hands the pair on once both are in, and only when the key
     * is the certificate's: a renewal writes one file, then the other, and the moment between must not be served.
     * True when a new pair was handed on.
     */
    public synchronized boolean check() {
        boolean certChanged = cert.check();
        boolean keyChanged = key.check();
        if (!(certChanged || keyChanged) && !pending) {
            return false;
        }
        String mismatch = KeyPair.mismatch(cert.get().toString(), key.get().toString());
        pending = mismatch != null;
        if (pending) {
            LOG.warning("the TLS files changed but the key is not the certificate's (" + mismatch + "); the old "
                    + "pair is served until both are written");
            return false;
        }
        PemKeyCertOptions next = options();
        listeners.forEach(l -> l.accept(next));
        return true;
    }
}
