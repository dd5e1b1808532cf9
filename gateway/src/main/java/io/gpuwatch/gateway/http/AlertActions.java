package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.silence.Resolution;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.silence.Silences;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.gateway.store.AuditEntry;
import io.gpuwatch.notify.chataction.ChatAction;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a click on a chat button does to the alerts it names, for the person the chat service says clicked:
 * <ul>
 * <li>{@link ChatAction#ACKNOWLEDGE}: acknowledges each live, unacknowledged alert;</li>
 * <li>{@link ChatAction#SILENCE}: a silence of each live alert's labels for {@link #SILENCE_FOR};</li>
 * <li>{@link ChatAction#RESOLVE}: gpuwatch resolves an alert only when its rule's condition clears (the next
 * evaluation would fire a manually resolved alert again), so Resolve acknowledges the alert and silences its
 * labels until it resolves, when the gateway ends the silence ({@link Resolution}) and the next episode pages
 * again; at most {@link #RESOLVE_AT_MOST}, after which an alert still firing pages as before.</li>
 * </ul>
 * Every change is stored with its audit entry (who: {@code source:receiver}, detail: by whom) before it is
 * answered, shared with the cluster, and an acknowledgement is told to the pagers the alert is routed to.
 */
final class AlertActions {
    static final Duration SILENCE_FOR = Duration.ofHours(1);
    static final Duration RESOLVE_AT_MOST = Duration.ofHours(24);

    private final ApiHost gateway;
    private final AckRecorder acks;
    private final SilenceEdits silences;

    AlertActions(ApiHost gateway, AckRecorder acks, SilenceEdits silences) {
        this.gateway = gateway;
        this.acks = acks;
        this.silences = silences;
    }

    /**
     * Takes {@code action} on each alert of {@code fingerprints} as {@code by}, via {@code where} (e.g.
     * {@code Slack}) and receiver {@code who} (e.g. {@code slack:gpu-slack}); answers what it did, per alert.
     */
    Future<JsonObject> take(ChatAction action, List<String> fingerprints, String by, String where, String who,
                            String remote) {
        Instant now = gateway.clock().instant();
        JsonArray recorded = new JsonArray();
        JsonArray skipped = new JsonArray();
        Future<Void> chain = Future.succeededFuture();
        for (String fingerprint : fingerprints) {
            String fp = fingerprint.strip();
            chain = chain.compose(v -> one(action, fp, by, where, who, remote, now, recorded, skipped));
        }
        return chain.map(v -> new JsonObject().put("action", action.id()).put("by", by).put("recorded", recorded)
                .put("skipped", skipped));
    }

    private Future<Void> one(ChatAction action, String fp, String by, String where, String who, String remote,
                             Instant now, JsonArray recorded, JsonArray skipped) {
        Optional<Alert> live = gateway.ledger().live().stream().filter(a -> a.fingerprint().equals(fp)).findFirst();
        if (live.isEmpty()) {
            skipped.add(new JsonObject().put("fingerprint", fp).put("reason", "not a live alert"));
            return Future.succeededFuture();
        }
        Alert a = live.get();
        boolean acked = gateway.acknowledgements().of(a.fingerprint(), a.activeSince()).isPresent();
        return switch (action) {
            case ACKNOWLEDGE -> {
                if (acked) {
                    skipped.add(new JsonObject().put("fingerprint", fp).put("reason", "already acknowledged"));
                    yield Future.succeededFuture();
                }
                yield acknowledge(a, by, "acknowledged in " + where, where, who, remote, now)
                        .onSuccess(v -> recorded.add(new JsonObject().put("fingerprint", fp).put("acknowledged",
                                true)));
            }
            case SILENCE -> silence(a, now.plus(SILENCE_FOR), by, "silenced for 1h from " + where, who, remote, now)
                    .onSuccess(id -> recorded.add(new JsonObject().put("fingerprint", fp).put("silence", id)))
                    .mapEmpty();
            case RESOLVE -> {
                if (resolving(fp, now)) {
                    skipped.add(new JsonObject().put("fingerprint", fp).put("reason", "already marked resolved"));
                    yield Future.succeededFuture();
                }
                Future<Void> ack = acked ? Future.succeededFuture()
                        : acknowledge(a, by, "marked resolved in " + where, where, who, remote, now);
                yield ack.compose(v -> silence(a, now.plus(RESOLVE_AT_MOST), by, Resolution.comment(fp, where), who,
                                remote, now))
                        .onSuccess(id -> recorded.add(new JsonObject().put("fingerprint", fp)
                                .put("acknowledged", !acked).put("silence", id)))
                        .mapEmpty();
            }
        };
    }

    /** Whether a Resolve of alert {@code fp} is already in force, so a second click adds no second silence. */
    private boolean resolving(String fp, Instant now) {
        return silences.silences().list(Silence.State.ACTIVE, now).stream()
                .anyMatch(s -> Resolution.awaited(s).filter(fp::equals).isPresent());
    }

    private Future<Void> acknowledge(Alert a, String by, String comment, String where, String who, String remote,
                                     Instant now) {
        Acknowledgement ack = new Acknowledgement(a.fingerprint(), by, now, comment, source(where));
        return acks.record(ack, new AuditEntry(0, now, who, "alert.ack", a.fingerprint(), "by " + by, remote))
                .onSuccess(v -> gateway.cluster().ifPresent(c -> c.share(ack)))
                .onSuccess(v -> acks.tellPagers(a, false));
    }

    /** A silence of {@code a}'s labels from now to {@code until}; answers its id. */
    private Future<String> silence(Alert a, Instant until, String by, String comment, String who, String remote,
                                   Instant now) {
        List<Matcher> matchers = new TreeMap<>(a.labels()).entrySet().stream()
                .map((Map.Entry<String, String> e) -> Matcher.equal(e.getKey(), e.getValue())).toList();
        Silences.Result r = silences.silences().create(matchers, null, until, by, comment, now);
        if (!r.ok()) {
            return Future.failedFuture(String.join("; ", r.errors()));
        }
        return silences.created(new AuditEntry(0, now, who, "silence.create", r.silence().id(),
                        SilenceEdits.describe(r.silence()), remote), r.silence())
                .map(s -> s.id());
    }

    private static String source(String where) {
        return where.toLowerCase(Locale.ROOT);
    }
}
