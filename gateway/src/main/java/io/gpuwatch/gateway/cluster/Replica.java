package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.ack.Acknowledgements;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.silence.Silences;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.gateway.store.AsyncStore;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * This gateway's copy of the cluster's silences and acknowledgements: the ones its dispatcher and API use, and its
 * store, if it has one, so that it restarts with them. A peer's version is taken only when it supersedes the one
 * kept ({@link SharedForm#newer}), so taking the same change twice, or an old one late, changes nothing. Taking
 * never shares anything back. Runs on the gateway's event loop.
 */
public final class Replica {
    private static final Logger LOG = Logger.getLogger(Replica.class.getName());

    private final Silences silences;
    private final Acknowledgements acks;
    private final Supplier<Optional<AsyncStore>> store;
    private final Runnable onTaken;

    /**
     * A copy kept in {@code silences}, {@code acks} and {@code store}'s store; {@code onTaken} runs after a
     * peer's change was taken, so that what a silence mutes or no longer mutes is acted on at once.
     */
    public Replica(Silences silences, Acknowledgements acks, Supplier<Optional<AsyncStore>> store,
                   Runnable onTaken) {
        this.silences = silences;
        this.acks = acks;
        this.store = store;
        this.onTaken = onTaken;
    }

    /** Takes {@code s} when it supersedes the silence of its id kept here; true when it did. */
    boolean take(Silence s) {
        Optional<Silence> kept = silences.get(s.id());
        if (kept.isPresent() && !SilenceForm.INSTANCE.newer(s, kept.get())) {
            return false;
        }
        silences.restore(s);
        // muting follows the cluster even if this disk fails; the store catches up when the gateway next joins
        store.get().ifPresent(st -> st.run(x -> {
            x.silences().save(s);
            return null;
        }).onFailure(e -> LOG.warning("could not store silence " + s.id() + " from a peer gateway: "
                + e.getMessage())));
        onTaken.run();
        return true;
    }

    /** Takes {@code a} when it supersedes the acknowledgement of its alert kept here; true when it did. */
    boolean take(Acknowledgement a) {
        Optional<Acknowledgement> kept = acks.of(a.fingerprint());
        if (kept.isPresent() && !AckForm.INSTANCE.newer(a, kept.get())) {
            return false;
        }
        acks.record(a);
        // the store keeps every acknowledgement for audit, and memory only those of live alerts: the store says
        // whether it has this one already, so a gateway joining again adds no copies
        store.get().ifPresent(st -> st.run(x -> {
            Optional<Acknowledgement> stored = x.acks().latest(a.fingerprint());
            if (stored.isEmpty() || AckForm.INSTANCE.newer(a, stored.get())) {
                x.acks().add(a);
            }
            return null;
        }).onFailure(e -> LOG.warning(
                "could not store the acknowledgement of " + a.fingerprint() + " from a peer gateway: "
                        + e.getMessage())));
        onTaken.run();
        return true;
    }

    /** Every silence kept here, expired ones included. */
    List<Silence> silences() {
        return silences.list();
    }

    /** The latest acknowledgement of each alert kept here. */
    List<Acknowledgement> acks() {
        return List.copyOf(acks.all());
    }
}
