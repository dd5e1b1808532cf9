package io.gpuwatch.gateway.ledger;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.alert.AlertLinks;
import io.gpuwatch.gateway.store.AsyncStore;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.rules.eval.Transition;
import io.vertx.core.Future;

import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The ledger kept in the gateway's store: the in-memory ledger decides, and every change it makes is written
 * (alert row and history) before its notification is handed on, so nothing is notified that a restart would
 * not remember. Notifications are released in the order of their transitions, each after its own commit.
 * Opening it loads the live alerts back: an alert that was firing before a restart is still live, so its next
 * firing transition pages no one again. Owned by one Vert.x context, like {@link MemoryLedger}.
 */
public final class PersistentLedger implements AlertLedger {
    private static final Logger LOG = Logger.getLogger(PersistentLedger.class.getName());

    private final AsyncStore store;
    private final MemoryLedger memory;
    private Future<Void> released = Future.succeededFuture();
    private long unwritten;

    private PersistentLedger(AsyncStore store, MemoryLedger memory) {
        this.store = store;
        this.memory = memory;
    }

    /**
     * Loads the live alerts and the newest {@code historyLimit} ended ones from {@code store}; call it on the
     * context that will apply transitions. Fails with the store's error when it cannot be read.
     */
    public static Future<PersistentLedger> open(AsyncStore store, int historyLimit, AlertLinks links) {
        return store.run(s -> new Loaded(s.alerts().live(), s.alerts().ended(historyLimit))).map(loaded -> {
            MemoryLedger memory = new MemoryLedger(historyLimit, links);
            loaded.live().forEach(memory::restore);
            loaded.ended().forEach(memory::restore);
            return new PersistentLedger(store, memory);
        });
    }

    private record Loaded(List<Alert> live, List<Alert> ended) {
    }

    /**
     * Hands on a firing notification for every live alert, for the delivery stage to rebuild its groups after
     * a restart; the notification log then keeps a group already delivered from going out again.
     */
    public void recover(Consumer<Notification> out) {
        for (Alert a : memory.live()) {
            out.accept(memory.notification(a));
        }
    }

    @Override
    public void apply(Transition t, Consumer<Notification> out) {
        memory.change(t, change -> {
            Instant at = Instant.ofEpochMilli(t.at());
            // the writer thread keeps submission order, so writes pipeline while releases wait their turn
            Future<Void> written = store.run(s -> {
                s.alerts().save(change.alert(), at);
                return null;
            });
            released = released.transform(previous -> written.transform(ar -> {
                if (ar.failed()) {
                    unwritten++;
                    // a page not remembered beats a page not sent: the outage of the disk is logged, the alert goes out
                    LOG.severe("could not store alert " + change.alert().fingerprint() + " ("
                            + change.notification().status() + "); notifying anyway: " + ar.cause().getMessage());
                }
                out.accept(change.notification());
                return Future.<Void>succeededFuture();
            }));
        });
    }

    /** Completes once every notification of the transitions applied so far has been handed on. */
    public Future<Void> settled() {
        return released;
    }

    /** How many changes the store refused to write (they were notified all the same). */
    public long unwritten() {
        return unwritten;
    }

    @Override
    public Notification notification(Alert alert) {
        return memory.notification(alert);
    }

    @Override
    public List<Alert> live() {
        return memory.live();
    }

    @Override
    public List<Alert> history() {
        return memory.history();
    }

    @Override
    public Alert pending(Transition t) {
        return memory.pending(t);
    }
}
