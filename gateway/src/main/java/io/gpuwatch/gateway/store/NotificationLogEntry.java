package io.gpuwatch.gateway.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * What was last delivered to {@code receiver} for {@code key} (a group key, or a fingerprint for ungrouped
 * sends): hashes of the firing and of the resolved fingerprint sets, and the firing fingerprints themselves, as
 * in Alertmanager's notification log.
 *
 * @param firing the fingerprints the receiver was told fire, sorted; null in an entry written before they were kept
 */
public record NotificationLogEntry(String receiver, String key, String firingHash, String resolvedHash,
                                   Instant sentAt, List<String> firing) {
    public NotificationLogEntry {
        Objects.requireNonNull(receiver, "receiver");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(firingHash, "firingHash");
        Objects.requireNonNull(resolvedHash, "resolvedHash");
        Objects.requireNonNull(sentAt, "sentAt");
        firing = firing == null ? null : List.copyOf(new TreeSet<>(firing));
    }

    /** The hash of a set of fingerprints, independent of their order; the empty set has its own hash. */
    public static String hash(Collection<String> fingerprints) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (String fp : new TreeSet<>(fingerprints)) {
                d.update(fp.getBytes(StandardCharsets.UTF_8));
                // a separator keeps {"ab","c"} and {"a","bc"} apart
                d.update((byte) 0);
            }
            return HexFormat.of().formatHex(d.digest(), 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** Whether this entry already covers a send of exactly these firing and resolved sets. */
    public boolean covers(String firing, String resolved) {
        return firingHash.equals(firing) && resolvedHash.equals(resolved);
    }
}
