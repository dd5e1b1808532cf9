package io.gpuwatch.gateway.escalation;

import io.gpuwatch.gateway.store.Escalation;
import io.vertx.core.Future;

import java.util.Optional;

/** The gateways of a cluster, as escalation sees them: where each escalation stands, and who sent which page. */
public interface Peers {
    /** Where the escalation of {@code fingerprint} stood when a gateway last shared it. */
    Future<Optional<Escalation>> of(String fingerprint);

    /** Shares where {@code e} stands, for whoever escalates its alert next. */
    Future<Void> share(Escalation e);

    /** Forgets the escalation of {@code fingerprint}, whose alert resolved. */
    Future<Void> forget(String fingerprint);

    /**
     * Claims the page {@code key} for this gateway: true for the first gateway to ask, false for every later one,
     * so a page is sent by one gateway even when two escalate the same alert around a failover.
     */
    Future<Boolean> claim(String key);
}
