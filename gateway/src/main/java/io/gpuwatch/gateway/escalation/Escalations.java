package io.gpuwatch.gateway.escalation;

import io.gpuwatch.gateway.route.EscalationPolicy;
import io.gpuwatch.gateway.route.EscalationStep;
import io.gpuwatch.gateway.store.Escalation;
import io.gpuwatch.notify.Notification;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Where every escalation of this gateway stands, and what moves it: a firing alert whose route names a policy
 * pages the policy's first step at once and each next step when the one before has waited its timeout without
 * an acknowledgement, round after round as the policy repeats. An acknowledgement holds it; taking the
 * acknowledgement back starts the held step's timeout again, so the next step follows if nobody acknowledges
 * anew; resolving ends it. Pure: {@link #advance} says what to keep and page, the caller keeps and pages it.
 * Owned by the gateway's event loop.
 */
public final class Escalations {
    /** A firing alert this gateway escalates by {@code policy}, and whether an acknowledgement holds it now. */
    public record Candidate(Notification alert, long activeSince, String policy, boolean acknowledged) {
    }

    /** One step to page: {@code escalation} as it stands after the page. */
    public record Page(Escalation escalation, EscalationPolicy policy, Notification alert) {
        /** The step paged. */
        public EscalationStep step() {
            return policy.steps().get(escalation.step());
        }

        /** The page's idempotency key: the same wherever and however often this page is sent. */
        public String key() {
            return escalation.pageKey(escalation.round(), escalation.step());
        }
    }

    /** What one {@link #advance} came to: escalations to keep, alerts whose escalation ended, pages to send. */
    public record Pass(List<Escalation> saved, List<String> removed, List<Page> pages) {
        public boolean isEmpty() {
            return saved.isEmpty() && removed.isEmpty();
        }
    }

    private final Map<String, EscalationPolicy> policies;
    private final InstantSource clock;
    private final Map<String, Escalation> held = new LinkedHashMap<>();

    /** Escalates by {@code policies} (by name) on {@code clock}'s time. */
    public Escalations(Map<String, EscalationPolicy> policies, InstantSource clock) {
        this.policies = Map.copyOf(policies);
        this.clock = clock;
    }

    /** Takes back {@code e}, kept before a restart or shared by a peer, as where its alert's escalation stands. */
    public void restore(Escalation e) {
        held.put(e.fingerprint(), e);
    }

    /** Forgets the escalation of {@code fingerprint}. */
    public void forget(String fingerprint) {
        held.remove(fingerprint);
    }

    /** Where the escalation of the alert {@code fingerprint} stands, if it has one here. */
    public Optional<Escalation> of(String fingerprint) {
        return Optional.ofNullable(held.get(fingerprint));
    }

    /** Whether this gateway holds the escalation of {@code fingerprint}. */
    public boolean holds(String fingerprint) {
        return held.containsKey(fingerprint);
    }

    /** The policies by name. */
    public Map<String, EscalationPolicy> policies() {
        return policies;
    }

    /**
     * Moves every escalation on to the clock's now, given the alerts this gateway escalates now: an escalation
     * whose alert is not among them has ended (resolved, or escalated elsewhere) and is forgotten. Each
     * escalation pages at most one step a pass, so one that fell far behind (a gateway down for an hour) pages
     * its next step once and waits that step's timeout from now rather than paging every step it missed.
     */
    public Pass advance(Collection<Candidate> live) {
        Instant now = clock.instant();
        List<Escalation> saved = new ArrayList<>();
        List<Page> pages = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Candidate c : live) {
            EscalationPolicy policy = policies.get(c.policy());
            String fp = c.alert().fingerprint();
            if (policy == null) {
                continue;
            }
            seen.add(fp);
            Escalation before = held.get(fp);
            boolean fresh = before == null || before.activeSince() != c.activeSince()
                    || !before.policy().equals(policy.name())
                    // the policy lost steps or rounds since (a changed file): start it over
                    || before.step() >= policy.steps().size() || before.round() >= policy.rounds();
            Escalation e = fresh ? new Escalation(fp, c.activeSince(), policy.name(), 0, -1, now,
                    Escalation.State.RUNNING) : before;
            Escalation next = step(e, policy, c.acknowledged(), now);
            if (next.state() == Escalation.State.RUNNING && (next.step() != e.step() || next.round() != e.round())) {
                pages.add(new Page(next, policy, c.alert()));
            }
            if (fresh || !next.equals(before)) {
                held.put(fp, next);
                saved.add(next);
            }
        }
        List<String> removed = new ArrayList<>();
        held.keySet().removeIf(fp -> {
            if (seen.contains(fp)) {
                return false;
            }
            removed.add(fp);
            return true;
        });
        return new Pass(saved, removed, pages);
    }

    private static Escalation step(Escalation e, EscalationPolicy policy, boolean acknowledged, Instant now) {
        return switch (e.state()) {
            case EXHAUSTED -> e;
            case ACKNOWLEDGED -> acknowledged ? e : with(e, e.round(), e.step(),
                    e.step() < 0 ? now : now.plus(policy.steps().get(e.step()).timeout()), Escalation.State.RUNNING);
            case RUNNING -> {
                if (acknowledged) {
                    yield with(e, e.round(), e.step(), null, Escalation.State.ACKNOWLEDGED);
                }
                if (now.isBefore(e.deadline())) {
                    yield e;
                }
                int round = e.round();
                int step = e.step() + 1;
                if (step == policy.steps().size()) {
                    round++;
                    step = 0;
                }
                if (round == policy.rounds()) {
                    yield with(e, e.round(), e.step(), null, Escalation.State.EXHAUSTED);
                }
                yield with(e, round, step, now.plus(policy.steps().get(step).timeout()), Escalation.State.RUNNING);
            }
        };
    }

    private static Escalation with(Escalation e, int round, int step, Instant deadline, Escalation.State state) {
        return new Escalation(e.fingerprint(), e.activeSince(), e.policy(), round, step, deadline, state);
    }
}
