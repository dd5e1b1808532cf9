package io.gpuwatch.gateway.ack;

import io.gpuwatch.gateway.store.Acknowledgement;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who acknowledged which live alert, in memory: the latest acknowledgement (or withdrawal) per fingerprint. Owned by the
 * gateway's event loop; entries of alerts that are no longer live are dropped by {@link #retain}.
 */
public final class Acknowledgements {
    private final Map<String, Acknowledgement> byFingerprint = new HashMap<>();

    /** Records {@code ack}, replacing an earlier one of the same alert. */
    public void record(Acknowledgement ack) {
        byFingerprint.put(ack.fingerprint(), ack);
    }

    /** The newest acknowledgement of the alert {@code fingerprint}, or its withdrawal, if any. */
    public Optional<Acknowledgement> of(String fingerprint) {
        return Optional.ofNullable(byFingerprint.get(fingerprint));
    }

    /**
     * The acknowledgement in force on the alert {@code fingerprint} in its episode active since
     * {@code activeSince} (epoch ms): one from an earlier episode of the same alert no longer counts, and one
     * withdrawn since is none.
     */
    public Optional<Acknowledgement> of(String fingerprint, long activeSince) {
        return of(fingerprint).filter(a -> !a.withdrawn() && a.at().toEpochMilli() >= activeSince);
    }

    /** The latest acknowledgement of each alert kept. */
    public Collection<Acknowledgement> all() {
        return List.copyOf(byFingerprint.values());
    }

    /** Forgets the acknowledgements of alerts not in {@code live}, since a new episode starts unacknowledged. */
    public void retain(Collection<String> live) {
        byFingerprint.keySet().retainAll(live);
    }
}
