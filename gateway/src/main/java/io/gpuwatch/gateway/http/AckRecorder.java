package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.gateway.store.AuditEntry;
import io.gpuwatch.notify.Acknowledging;
import io.gpuwatch.notify.Receiver;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The one way an acknowledgement is kept, whether a person gave it over the API or a paging service reported
 * it: in the store first when the gateway has one, then on the live alert in memory. Telling the pagers is a
 * separate step, which only an acknowledgement given here takes. Runs on the gateway's event loop.
 */
final class AckRecorder {
    /** What telling one pager came to: {@code error} is null when it took the acknowledgement. */
    record Told(String receiver, String error) {
    }

    private final ApiHost gateway;

    AckRecorder(ApiHost gateway) {
        this.gateway = gateway;
    }

    /**
     * Keeps {@code ack} and its {@code audit} entry in one transaction; a failed future when the store could
     * not, with nothing kept in memory either.
     */
    Future<Void> record(Acknowledgement ack, AuditEntry audit) {
        Future<Void> stored = gateway.store().map(store -> store.run(s -> {
            s.acks().add(ack);
            return s.audit().add(audit);
        }).<Void>mapEmpty()).orElseGet(Future::succeededFuture);
        return stored.map(v -> {
            gateway.acknowledgements().retain(gateway.ledger().live().stream().map(Alert::fingerprint).toList());
            gateway.acknowledgements().record(ack);
            return (Void) null;
        });
    }

    /** How the API shows an acknowledgement (or, under another name, its withdrawal). */
    static JsonObject json(Acknowledgement a) {
        return new JsonObject().put("by", a.by()).put("at", a.at().toString()).put("comment", a.comment())
                .put("source", a.source());
    }

    /** How the API shows what telling each pager came to. */
    static JsonArray json(List<Told> told) {
        JsonArray outcomes = new JsonArray();
        for (Told t : told) {
            outcomes.add(new JsonObject().put("receiver", t.receiver()).put("ok", t.error() == null)
                    .put("error", t.error()));
        }
        return outcomes;
    }

    /**
     * Tells each receiver {@code alert} is routed to that tracks alerts itself (a pager) that it was
     * acknowledged, or with {@code withdrawn} that the acknowledgement was taken back; one outcome per pager, in
     * receiver order. A pager that cannot be reached, or cannot take it, does not fail it.
     */
    Future<List<Told>> tellPagers(Alert alert, boolean withdrawn) {
        Set<String> routedTo = new HashSet<>();
        gateway.dispatcher().routing().routes(alert.labels()).forEach(r -> routedTo.add(r.receiver()));
        List<Receiver> pagers = gateway.receivers().stream()
                .filter(r -> r instanceof Acknowledging && routedTo.contains(r.name())).toList();
        List<Future<Void>> told = pagers.stream().map(r -> withdrawn
                ? ((Acknowledging) r).unacknowledge(alert.fingerprint())
                : ((Acknowledging) r).acknowledge(alert.fingerprint())).toList();
        return Future.join(told).transform(ar -> {
            List<Told> out = new ArrayList<>();
            for (int i = 0; i < pagers.size(); i++) {
                Future<Void> f = told.get(i);
                out.add(new Told(pagers.get(i).name(), f.failed() ? f.cause().getMessage() : null));
            }
            return Future.succeededFuture(out);
        });
    }
}
