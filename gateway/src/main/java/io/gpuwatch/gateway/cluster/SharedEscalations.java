package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.escalation.Peers;
import io.gpuwatch.gateway.store.Escalation;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The cluster's escalations: where each alert's escalation stands (fingerprint to JSON), written by the gateway
 * escalating it, read by the one that takes the alert over; and the page claims, taken with an atomic
 * put-if-absent before a page is queued, so of two gateways that both escalate an alert around a failover one
 * pages. As with {@link SendClaims}, a claim comes before the send: a gateway killed between the two loses that
 * page rather than letting a peer page twice.
 */
public final class SharedEscalations implements Peers {
    /** Fingerprint to the escalation's JSON. */
    public static final String MAP = "gpuwatch.escalations";
    /** Page key to the member id that claimed it. */
    public static final String PAGES = "gpuwatch.escalation.pages";
    /** How long a page claim is kept: far longer than a failover takes, short enough that the map is trimmed. */
    static final Duration CLAIM_TTL = Duration.ofDays(2);
    private static final Logger LOG = Logger.getLogger(SharedEscalations.class.getName());

    private final AsyncMap<String, String> states;
    private final AsyncMap<String, String> pages;
    private final String member;

    SharedEscalations(AsyncMap<String, String> states, AsyncMap<String, String> pages, String member) {
        this.states = states;
        this.pages = pages;
        this.member = member;
    }

    @Override
    public Future<Optional<Escalation>> of(String fingerprint) {
        return states.get(fingerprint).map(text -> {
            if (text == null) {
                return Optional.empty();
            }
            try {
                return Optional.of(decode(new JsonObject(text)));
            } catch (RuntimeException e) {
                LOG.warning("skipped the shared escalation of " + fingerprint + ", which does not read: " + e);
                return Optional.empty();
            }
        });
    }

    @Override
    public Future<Void> share(Escalation e) {
        return states.put(e.fingerprint(), encode(e).encode());
    }

    @Override
    public Future<Void> forget(String fingerprint) {
        return states.remove(fingerprint).mapEmpty();
    }

    @Override
    public Future<Boolean> claim(String key) {
        return pages.putIfAbsent(key, member, CLAIM_TTL.toMillis()).map(before -> before == null);
    }

    static JsonObject encode(Escalation e) {
        return new JsonObject().put("fingerprint", e.fingerprint()).put("activeSince", e.activeSince())
                .put("policy", e.policy()).put("round", e.round()).put("step", e.step())
                .put("deadline", e.deadline() == null ? null : e.deadline().toEpochMilli())
                .put("state", e.state().name());
    }

    static Escalation decode(JsonObject o) {
        Long deadline = o.getLong("deadline");
        return new Escalation(o.getString("fingerprint"), o.getLong("activeSince"), o.getString("policy"),
                o.getInteger("round"), o.getInteger("step"), deadline == null ? null : Instant.ofEpochMilli(deadline),
                Escalation.State.valueOf(o.getString("state")));
    }
}
