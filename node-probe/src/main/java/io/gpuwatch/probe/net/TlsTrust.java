package io.gpuwatch.probe.net;

import java.nio.file.Path;

/**
 * Which server certificates a TLS connection accepts.
 *
 * @param pem PEM certificate(s) to trust instead of the JVM's store; null for the JVM's store
 * @param any accept any certificate for any host (a kubelet's self-signed serving certificate); {@code pem} is then
 *            ignored
 */
public record TlsTrust(Path pem, boolean any) {
    /** The JVM's default trust store, host names checked. */
    public static final TlsTrust JVM = new TlsTrust(null, false);
    /** Any certificate, host names not checked. */
    public static final TlsTrust ANY = new TlsTrust(null, true);

    /** The certificates in {@code pem} (the JVM's store when null), host names checked. */
    public static TlsTrust pem(Path pem) {
        return new TlsTrust(pem, false);
    }
}
