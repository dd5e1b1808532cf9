package io.gpuwatch.gateway.delivery;

import io.gpuwatch.gateway.group.Flush;
import io.gpuwatch.gateway.store.AsyncStore;
import io.gpuwatch.gateway.store.NotificationLogEntry;
import io.gpuwatch.gateway.store.OutboxEntry;
import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.Group;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;

/**
 * Durable delivery: each due group becomes an outbox row per receiver, committed before the dispatcher is told
 * it is taken; {@link #poll} claims due rows, sends each through its receiver, and completes it (with its
 * notification-log entry, in one transaction), retries it with the store's back-off on a retryable failure
 * (5xx, 429, timeouts, anything that is not a {@link DeliveryFailure} saying otherwise), or gives it up.
 * Rows left pending by a killed gateway are claimed again after a restart; a group the notification log shows
 * delivered already is not sent again. The outbox hands out only the oldest pending row of a receiver and group,
 * so after an outage a receiver hears each group's changes in order; the next one is claimed in the same poll
 * as soon as the previous one is settled. A receiver failing for longer than {@code failingAfter} raises a
 * {@link ReceiverWatch meta-alert} sent to the fallback receiver. A re-send of what fires ({@link Resender})
 * shares one row per receiver and is not retried: the next interval's takes its place. Owned by one Vert.x
 * context.
 */
public final class OutboxSender implements Delivery {
    private static final Logger LOG = Logger.getLogger(OutboxSender.class.getName());
    /** How often a draining sender looks for rows that fell due. */
    private static final long DRAIN_STEP_MS = 50;

    private final Vertx vertx;
    private final AsyncStore store;
    private final Map<String, Receiver> receivers = new LinkedHashMap<>();
    private final InstantSource clock;
    private final Settings settings;
    private final ReceiverWatch watch;
    private Future<Integer> polling;
    private boolean again;
    private long timer = -1;
    private long delivered;
    private long skipped;
    private long givenUp;

    /**
     * How the sender works: rows claimed per poll, how long a claim is held, how long one send may take before
     * it counts as a timeout, how long a receiver may fail before the meta-alert, and where that goes
     * ({@code fallback} null: logged only).
     */
    public record Settings(int batch, Duration lease, Duration sendTimeout, Duration failingAfter, String fallback) {
        public Settings {
            Objects.requireNonNull(lease, "lease");
            Objects.requireNonNull(sendTimeout, "sendTimeout");
            Objects.requireNonNull(failingAfter, "failingAfter");
            if (batch < 1 || sendTimeout.compareTo(lease) >= 0) {
                throw new IllegalArgumentException("outbox sender needs batch >= 1 and a send timeout shorter than "
                        + "the lease, got " + batch + ", " + sendTimeout + " and " + lease);
            }
        }

        /** 50 rows a poll, 5 min leases, 2 min per send, a meta-alert after 10 min to {@code fallback}. */
        public static Settings standard(String fallback) {
            return new Settings(50, Duration.ofMinutes(5), Duration.ofMinutes(2), Duration.ofMinutes(10), fallback);
        }
    }

    /** Sends through {@code receivers} (by name) what {@code store}'s outbox holds; the clock dates attempts. */
    public OutboxSender(Vertx vertx, AsyncStore store, List<Receiver> receivers, InstantSource clock,
                        Settings settings) {
        this.vertx = vertx;
        this.store = store;
        receivers.forEach(r -> this.receivers.put(r.name(), r));
        this.clock = clock;
        this.settings = settings;
        this.watch = new ReceiverWatch(settings.failingAfter());
        if (settings.fallback() != null && !this.receivers.containsKey(settings.fallback())) {
            throw new IllegalArgumentException("the fallback receiver " + settings.fallback() + " is not configured "
                    + "(configured: " + String.join(", ", this.receivers.keySet()) + ")");
        }
    }

    /**
     * Queues {@code flush} as a row of its own; a {@link Flush.Reason#REFRESH re-send} takes over the receiver's
     * one re-send row instead, so an outage leaves one refresh waiting, the latest, not one per interval.
     */
    @Override
    public Future<Void> deliver(Receiver receiver, Flush flush) {
        String payload = BatchPayload.of(flush).encode();
        List<String> fingerprints = flush.alerts().stream().map(Notification::fingerprint).toList();
        Future<?> queued = flush.reason() == Flush.Reason.REFRESH
                ? store.run(s -> s.outbox().replace(receiver.name(), flush.groupKey(), payload, fingerprints))
                : store.run(s -> s.outbox().enqueue(receiver.name(), flush.groupKey(), payload, fingerprints));
        return queued.<Void>mapEmpty().onSuccess(v -> poll());
    }

    /** Polls every {@code every} until {@link #stop}, starting with one poll now for rows left from before. */
    public void start(Duration every) {
        stop();
        timer = vertx.setPeriodic(1, every.toMillis(), id -> poll());
    }

    /** Stops polling; rows in flight finish. */
    public void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
    }

    /**
     * Sends what the outbox holds for at most {@code within}: polls until no row is pending, or none falls due
     * within that time (a row backing off from a failing receiver), or the time is up; completes with how many
     * rows are still pending then, which stay for the next start. What a stopping gateway does last.
     */
    public Future<Long> drain(Duration within) {
        Promise<Void> over = Promise.promise();
        long timeout = vertx.setTimer(Math.max(1, within.toMillis()), id -> over.tryComplete());
        drainStep(within, over);
        return over.future().compose(v -> {
            vertx.cancelTimer(timeout);
            return store.run(s -> s.outbox().count(OutboxEntry.State.PENDING));
        });
    }

    private void drainStep(Duration within, Promise<Void> over) {
        if (over.future().isComplete()) {
            return;
        }
        poll().transform(ar -> store.run(s -> s.outbox().count(OutboxEntry.State.PENDING) == 0 ? Optional.<Instant>empty()
                        : Optional.of(s.outbox().nextDue().orElse(Instant.MAX))))
                .onComplete(ar -> {
                    Optional<Instant> next = ar.succeeded() ? ar.result() : Optional.of(Instant.MAX);
                    if (next.isEmpty() || next.get().isAfter(clock.instant().plus(within))) {
                        over.tryComplete();
                    } else {
                        vertx.setTimer(DRAIN_STEP_MS, id -> drainStep(within, over));
                    }
                });
    }

    /**
     * Claims the due rows and settles each, again while that frees the next row of a group; completes with how
     * many it handled. A poll asked for while one runs is folded into another right after it.
     */
    public Future<Integer> poll() {
        if (polling != null) {
            again = true;
            return polling;
        }
        polling = drain(0)
                .onComplete(ar -> {
                    polling = null;
                    if (ar.failed()) {
                        LOG.warning("outbox poll failed: " + ar.cause().getMessage());
                    }
                    if (again) {
                        again = false;
                        poll();
                    }
                });
        return polling;
    }

    /**
     * Claims and settles due rows until a claim settles nothing: a settled row lets the next row of its group
     * be claimed, which need not wait for the timer.
     */
    private Future<Integer> drain(int handled) {
        long settledBefore = delivered + skipped + givenUp;
        return store.run(s -> s.outbox().claim(settings.batch(), settings.lease()))
                .compose(rows -> {
                    Future<Void> chain = Future.succeededFuture();
                    for (OutboxEntry row : rows) {
                        chain = chain.transform(ignored -> settle(row));
                    }
                    return chain.transform(ignored -> watchReceivers()).map(v -> rows.size());
                })
                .compose(n -> delivered + skipped + givenUp > settledBefore ? drain(handled + n)
                        : Future.succeededFuture(handled + n));
    }

    private Future<Void> settle(OutboxEntry row) {
        String where = "outbox row " + row.id() + " for " + row.receiver();
        BatchPayload payload;
        try {
            payload = BatchPayload.decode(row.payload(), where);
        } catch (IllegalArgumentException e) {
            return giveUp(row, e.getMessage());
        }
        Receiver receiver = receivers.get(row.receiver());
        if (receiver == null) {
            return giveUp(row, where + ": no receiver of that name is configured (configured: "
                    + String.join(", ", receivers.keySet()) + ")");
        }
        String firing = hash(payload.alerts(), Notification.Status.FIRING);
        String resolved = hash(payload.alerts(), Notification.Status.RESOLVED);
        boolean refresh = payload.reason() == Flush.Reason.REFRESH;
        Future<Boolean> known = payload.reason() == Flush.Reason.REPEAT || refresh
                ? Future.succeededFuture(false)
                : store.run(s -> s.notificationLog().last(row.receiver(), row.key())
                        .map(e -> e.covers(firing, resolved)).orElse(false));
        return known.compose(already -> {
            if (already) {
                // sent before a restart and rebuilt by the ledger's recovery: the receiver has it already
                return store.run(s -> s.outbox().complete(row)).map(ok -> {
                    skipped++;
                    return null;
                });
            }
            String deliveryKey = NotificationLogEntry.hash(List.of(row.receiver(), row.key(), firing, resolved,
                    Long.toString(row.id())));
            Group group = new Group(row.key(), payload.groupLabels());
            return send(receiver, refresh ? receiver.resend(payload.alerts())
                    : receiver.send(group, payload.alerts(), deliveryKey)).transform(ar -> {
                if (ar.succeeded()) {
                    watch.succeeded(row.receiver(), clock.instant());
                    return store.run(s -> {
                        // a refresh told the receiver nothing new, so the log of what each group was told stays
                        if (s.outbox().complete(row) && !refresh) {
                            s.notificationLog().record(new NotificationLogEntry(row.receiver(), row.key(), firing,
                                    resolved, clock.instant(), fingerprints(payload.alerts(),
                                    Notification.Status.FIRING)));
                        }
                        return null;
                    }).map(v -> {
                        delivered++;
                        return null;
                    });
                }
                Throwable e = ar.cause();
                String error = e.getMessage() == null ? e.toString() : e.getMessage();
                watch.failed(row.receiver(), clock.instant(), error);
                if (refresh) {
                    // a retry would send what fired then; the next interval's refresh sends what fires then
                    return store.run(s -> s.outbox().giveUp(row, error)).map(r -> {
                        LOG.warning(where + ": re-sending the firing alerts failed, the next re-send follows in "
                                + "its interval: " + error);
                        return null;
                    });
                }
                if (e instanceof DeliveryFailure f && !f.retryable()) {
                    return giveUp(row, error);
                }
                return store.run(s -> s.outbox().fail(row, error, null)).map(now -> {
                    now.filter(r -> r.state() == OutboxEntry.State.FAILED).ifPresentOrElse(
                            r -> {
                                givenUp++;
                                LOG.severe(where + " given up: " + r.lastError());
                            },
                            () -> LOG.warning(where + " failed, will retry: " + error));
                    return null;
                });
            });
        });
    }

    private Future<Void> giveUp(OutboxEntry row, String error) {
        return store.run(s -> s.outbox().giveUp(row, error)).map(r -> {
            givenUp++;
            LOG.severe("outbox row " + row.id() + " for " + row.receiver() + " given up: " + error);
            return null;
        });
    }

    /** {@code sending} through {@code receiver}, failed as a timeout if it takes longer than the send timeout. */
    private Future<Void> send(Receiver receiver, Future<Void> sending) {
        Promise<Void> done = Promise.promise();
        long deadline = vertx.setTimer(settings.sendTimeout().toMillis(), id -> done.tryFail(new TimeoutException(
                "receiver " + receiver.name() + " did not answer within " + settings.sendTimeout())));
        sending.onComplete(ar -> {
            vertx.cancelTimer(deadline);
            if (ar.succeeded()) {
                done.tryComplete();
            } else {
                done.tryFail(ar.cause());
            }
        });
        return done.future();
    }

    /** Queues the meta-alerts that are due for the fallback receiver, or logs them where there is none. */
    private Future<Void> watchReceivers() {
        Future<Void> chain = Future.succeededFuture();
        for (Notification n : watch.due(clock.instant())) {
            String about = n.labels().get("receiver");
            String line = "receiver " + about + (n.status() == Notification.Status.FIRING
                    ? " has been failing since " + n.startsAt() + ": " + n.annotations().get("description")
                    : " has recovered");
            String fallback = settings.fallback();
            if (fallback == null || fallback.equals(about)) {
                LOG.severe(line);
                continue;
            }
            LOG.warning(line + "; telling " + fallback);
            Flush.Reason reason = n.status() == Notification.Status.FIRING ? Flush.Reason.NEW_ALERTS
                    : Flush.Reason.RESOLVED;
            // a group of its own on the root route, every label grouping it, as without a routing file
            Group group = Group.of("{}", n.labels());
            String payload = new BatchPayload(reason, group.labels(), List.of(n)).encode();
            chain = chain.compose(v -> store.run(s -> s.outbox().enqueue(fallback, group.key(), payload,
                            List.of(n.fingerprint())))
                    .<Void>mapEmpty()
                    .onSuccess(x -> again = true));
        }
        return chain;
    }

    private static String hash(List<Notification> alerts, Notification.Status status) {
        return NotificationLogEntry.hash(fingerprints(alerts, status));
    }

    private static List<String> fingerprints(List<Notification> alerts, Notification.Status status) {
        return alerts.stream().filter(n -> n.status() == status).map(Notification::fingerprint).toList();
    }

    /** Receivers whose failing meta-alert fires now. */
    public List<String> failingReceivers() {
        return watch.raised();
    }

    /** Rows delivered since start. */
    public long delivered() {
        return delivered;
    }

    /** Rows completed without sending, because the notification log showed them delivered already. */
    public long skipped() {
        return skipped;
    }

    /** Rows given up on since start. */
    public long givenUp() {
        return givenUp;
    }
}
