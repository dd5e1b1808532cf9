package io.gpuwatch.gateway.escalation;

import io.gpuwatch.gateway.delivery.BatchPayload;
import io.gpuwatch.gateway.group.Flush;
import io.gpuwatch.gateway.route.EscalationPolicy;
import io.gpuwatch.gateway.route.EscalationStep;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.store.AsyncStore;
import io.gpuwatch.gateway.store.Escalation;
import io.gpuwatch.notify.Group;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.vertx.core.Future;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Runs the {@link Escalations} of a gateway on its event loop, on the gateway's tick. With a store, each pass is
 * kept in one transaction together with the outbox rows of the pages it sends: a page is recorded as sent in the
 * same commit that queues it, so a killed gateway resumes every escalation at the step and deadline it had and
 * pages no step twice, while the outbox delivers each queued page at least once under its page key. Without a
 * store pages go straight to their receivers and a restart starts over. In a cluster, only the gateway that
 * speaks for an alert escalates it; where each escalation stands is shared, so the gateway that takes the
 * alert over resumes it, and every page is claimed cluster-wide before it is queued.
 */
public final class Escalator {
    private static final Logger LOG = Logger.getLogger(Escalator.class.getName());

    private final Escalations escalations;
    /** Per policy, per step, the receivers it pages through, under the names the outbox knows them by. */
    private final Map<String, List<List<Receiver>>> stepReceivers = new HashMap<>();
    private AsyncStore store;
    private Peers peers;
    private Runnable queued = () -> { };
    private boolean busy;
    /** Alerts whose shared escalation was looked up since this gateway last escalated them. */
    private final Set<String> looked = new HashSet<>();

    /**
     * Escalates by {@code policies} on {@code clock}'s time, paging through receivers {@code make} makes with the
     * mentions of each step from {@code roster}.
     *
     * @throws IllegalArgumentException naming a step's receiver {@code make} does not know
     */
    public Escalator(Map<String, EscalationPolicy> policies, Supplier<Roster> roster, StepReceivers make,
                     InstantSource clock) {
        this.escalations = new Escalations(policies, clock);
        for (EscalationPolicy p : policies.values()) {
            List<List<Receiver>> steps = new ArrayList<>();
            for (int i = 0; i < p.steps().size(); i++) {
                EscalationStep step = p.steps().get(i);
                List<Receiver> via = new ArrayList<>();
                for (String name : step.via()) {
                    Receiver r = make.make(name, channel -> new StepMentions(roster, step.targets(), channel, clock))
                            .orElseThrow(() -> new IllegalArgumentException("escalation policy " + p.name()
                                    + " pages through receiver " + name + ", which is not configured"));
                    via.add(new StepReceiver(name + "@" + p.name() + "/" + (steps.size() + 1), r));
                }
                steps.add(via);
            }
            stepReceivers.put(p.name(), steps);
        }
    }

    /** The receivers of every step, under the names their outbox rows carry; the outbox must know them. */
    public List<Receiver> receivers() {
        List<Receiver> out = new ArrayList<>();
        stepReceivers.values().forEach(steps -> steps.forEach(out::addAll));
        return out;
    }

    /** Takes back the escalations {@code store} kept and keeps every later pass there; {@code queued} runs once a pass queued pages. */
    public Future<Void> recover(AsyncStore store, Runnable queued) {
        this.queued = queued;
        return store.run(s -> s.escalations().all()).map(kept -> {
            kept.forEach(escalations::restore);
            this.store = store;
            if (!kept.isEmpty()) {
                LOG.info("took back " + kept.size() + " escalations from the store");
            }
            return (Void) null;
        });
    }

    /** Shares every escalation with the gateways of a cluster from now on. */
    public void shareWith(Peers peers) {
        this.peers = peers;
    }

    /** Where the escalation of {@code fingerprint} stands here, if this gateway escalates it. */
    public Optional<Escalation> of(String fingerprint) {
        return escalations.of(fingerprint);
    }

    /** The policies by name. */
    public Map<String, EscalationPolicy> policies() {
        return escalations.policies();
    }

    /**
     * One pass over {@code live}, the firing alerts this gateway escalates now; {@code firing} says whether an
     * alert no longer among them still fires somewhere (escalated by a peer now) rather than having resolved.
     * A pass still being kept makes this one a no-op: the next tick catches up.
     */
    public void tick(List<Escalations.Candidate> live, Predicate<String> firing) {
        if (busy) {
            return;
        }
        if (peers != null) {
            List<String> missing = live.stream().map(c -> c.alert().fingerprint())
                    .filter(fp -> !escalations.holds(fp) && !looked.contains(fp)).toList();
            if (!missing.isEmpty()) {
                busy = true;
                lookUp(missing).onComplete(ar -> busy = false);
                return;
            }
        }
        Map<String, Escalation> before = new HashMap<>();
        live.forEach(c -> escalations.of(c.alert().fingerprint()).ifPresent(e -> before.put(e.fingerprint(), e)));
        Escalations.Pass pass = escalations.advance(live);
        if (pass.isEmpty()) {
            return;
        }
        pass.removed().forEach(looked::remove);
        busy = true;
        claim(pass.pages()).compose(pages -> keep(pass, pages)).onComplete(ar -> {
            busy = false;
            if (ar.failed()) {
                // nothing was kept or paged: take the pass back, so the next tick tries it again
                for (Escalation e : pass.saved()) {
                    Escalation was = before.get(e.fingerprint());
                    if (was == null) {
                        escalations.forget(e.fingerprint());
                    } else {
                        escalations.restore(was);
                    }
                }
                LOG.warning("could not keep " + pass.saved().size() + " escalation changes and "
                        + pass.pages().size() + " pages, trying again: " + ar.cause().getMessage());
                return;
            }
            if (peers != null) {
                pass.saved().forEach(e -> peers.share(e).onFailure(x -> LOG.warning("could not share the "
                        + "escalation of " + e.fingerprint() + " with the cluster: " + x.getMessage())));
                pass.removed().stream().filter(fp -> !firing.test(fp)).forEach(fp -> peers.forget(fp));
            }
        });
    }

    private Future<Void> lookUp(List<String> fingerprints) {
        List<Future<Optional<Escalation>>> found = fingerprints.stream().map(peers::of).toList();
        return Future.join(found).transform(ar -> {
            for (int i = 0; i < fingerprints.size(); i++) {
                Future<Optional<Escalation>> f = found.get(i);
                if (f.failed()) {
                    LOG.warning("could not read the shared escalation of " + fingerprints.get(i) + ": "
                            + f.cause().getMessage());
                    continue;
                }
                looked.add(fingerprints.get(i));
                f.result().filter(e -> !escalations.holds(e.fingerprint())).ifPresent(e -> {
                    escalations.restore(e);
                    LOG.info("resuming the escalation of " + e.fingerprint() + " a peer gateway left at round "
                            + (e.round() + 1) + ", step " + (e.step() + 1));
                });
            }
            return Future.succeededFuture();
        });
    }

    /** The pages this gateway may send: in a cluster, those whose claim it won. */
    private Future<List<Escalations.Page>> claim(List<Escalations.Page> pages) {
        if (peers == null || pages.isEmpty()) {
            return Future.succeededFuture(pages);
        }
        List<Future<Boolean>> claims = pages.stream().map(p -> peers.claim(p.key())).toList();
        return Future.all(claims).map(v -> {
            List<Escalations.Page> won = new ArrayList<>();
            for (int i = 0; i < pages.size(); i++) {
                if (claims.get(i).result()) {
                    won.add(pages.get(i));
                } else {
                    LOG.info("page " + pages.get(i).key() + " was sent by a peer gateway already");
                }
            }
            return won;
        });
    }

    private Future<Void> keep(Escalations.Pass pass, List<Escalations.Page> pages) {
        if (store == null) {
            for (Escalations.Page p : pages) {
                for (Receiver r : receiversOf(p)) {
                    r.send(new Group(p.key(), p.alert().labels()), List.of(p.alert()), p.key())
                            .onFailure(e -> LOG.warning("receiver " + r.name() + " failed page " + p.key() + ": "
                                    + e.getMessage()));
                }
            }
            return Future.succeededFuture();
        }
        List<String> rows = new ArrayList<>();
        return store.run(s -> {
            pass.saved().forEach(s.escalations()::save);
            pass.removed().forEach(s.escalations()::remove);
            for (Escalations.Page p : pages) {
                String payload = new BatchPayload(Flush.Reason.FIRST, p.alert().labels(), List.of(p.alert())).encode();
                for (Receiver r : receiversOf(p)) {
                    s.outbox().enqueue(r.name(), p.key(), payload, List.of(p.alert().fingerprint()));
                    rows.add(p.key() + " to " + r.name());
                }
            }
            return null;
        }).map(v -> {
            if (!rows.isEmpty()) {
                LOG.info("escalation queued " + String.join(", ", rows));
                queued.run();
            }
            return (Void) null;
        });
    }

    private List<Receiver> receiversOf(Escalations.Page p) {
        return stepReceivers.get(p.policy().name()).get(p.escalation().step());
    }

    /** A step's receiver under its own name, so the outbox sends its rows through it and not the route's. */
    private record StepReceiver(String name, Receiver inner) implements Receiver {
        @Override
        public Future<Void> send(List<Notification> batch) {
            return inner.send(batch);
        }

        @Override
        public Future<Void> send(List<Notification> batch, String deliveryKey) {
            return inner.send(batch, deliveryKey);
        }

        @Override
        public Future<Void> send(Group group, List<Notification> batch, String deliveryKey) {
            return inner.send(group, batch, deliveryKey);
        }
    }
}
