package io.gpuwatch.gateway.ledger;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.alert.AlertLinks;
import io.gpuwatch.gateway.store.AsyncStore;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.rules.eval.Transition;
import io.vertx.core.Future;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
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
     * Hands on a firing notification of every live alert and a resolved one of the last episode of every other
     * alert it keeps, for the delivery stage to rebuild its groups after a restart: the notification log then
     * keeps what a receiver was told from going out again, and tells it of the ends it never heard.
     */
    public void recover(BiConsumer<List<Notification>, List<Notification>> out) {
        List<Notification> live = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Alert a : memory.live()) {
            live.add(memory.notification(a));
            seen.add(a.fingerprint());
        }
        List<Notification> ended = new ArrayList<>();
        // newest first, so each fingerprint's last episode
        for (Alert a : memory.history()) {
            if (seen.add(a.fingerprint())) {
                ended.add(memory.notification(a));
            }
        }
        out.accept(live, ended);
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
