package io.gpuwatch.gateway.cluster;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A consistent-hash ring over cluster member ids: each member stands at {@link #VIRTUAL_NODES} points, and a
 * node belongs to the member at the first point at or after its own hash. Every gateway builds the same ring
 * from the same members, so all agree on each node's owner, and a member leaving moves only its own nodes.
 */
public final class HashRing {
    /** Points per member: enough that three members share the nodes within a few percent of a third each. */
    public static final int VIRTUAL_NODES = 160;

    private final TreeMap<Long, String> points = new TreeMap<>();
    private final SortedSet<String> members;

    /** A ring over {@code members}; empty when there are none. */
    public HashRing(Collection<String> members) {
        this.members = new TreeSet<>(members);
        for (String m : this.members) {
            for (int i = 0; i < VIRTUAL_NODES; i++) {
                // a collision (2^-64 odds) goes to the smaller id, the same on every gateway
                points.merge(hash(m + "#" + i), m, (a, b) -> a.compareTo(b) <= 0 ? a : b);
            }
        }
    }

    /** The member that owns {@code node}; empty on an empty ring. */
    public Optional<String> owner(String node) {
        if (points.isEmpty()) {
            return Optional.empty();
        }
        Map.Entry<Long, String> at = points.ceilingEntry(hash(node));
        return Optional.of((at != null ? at : points.firstEntry()).getValue());
    }

    /** The members on the ring, in id order. */
    public SortedSet<String> members() {
        return Collections.unmodifiableSortedSet(members);
    }

    private static long hash(String s) {
        byte[] d = sha256().digest(s.getBytes(StandardCharsets.UTF_8));
        long h = 0;
        for (int i = 0; i < 8; i++) {
            h = (h << 8) | (d[i] & 0xff);
        }
        return h;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
