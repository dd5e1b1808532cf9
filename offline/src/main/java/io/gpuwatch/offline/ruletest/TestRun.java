package io.gpuwatch.offline.ruletest;

import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.replay.Replay;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.source.Diagnostic;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs one test of a test file: every node says hello at the test's start, then events and samples reach a
 * {@link Replay} in time order (at one instant events first), and at each {@code eval_time} the firing alerts of
 * the named rule are compared with the expected ones.
 */
final class TestRun {
    /** Virtual time of a test's start: 2026-01-01T00:00:00Z. */
    static final long START_MS = 1_767_225_600_000L;

    private final TestFile file;
    private final TestFile.Case test;
    private final Replay replay;
    private final Map<String, Long> seqs = new HashMap<>();

    private TestRun(TestFile file, TestFile.Case test, RuleSet rules) {
        this.file = file;
        this.test = test;
        this.replay = new Replay(rules, file.evaluationIntervalMs(), s -> { });
    }

    static TestResult run(TestFile file, TestFile.Case test, RuleSet rules) {
        return new TestRun(file, test, rules).run();
    }

    private TestResult run() {
        if (!Double.isNaN(test.cardHourPrice())) {
            replay.fleet().usePricing(new Pricing("", test.cardHourPrice(), List.of(), Map.of()));
        }
        for (TestFile.SeededBaseline b : test.baselines()) {
            replay.fleet().baselines().seed(b.business(), b.metric(), START_MS, b.mean(), b.std());
        }
        for (TestFile.NodeSetup n : test.nodes()) {
            List<CardInfo> cards = new ArrayList<>();
            for (TestFile.CardSetup c : n.cards()) {
                cards.add(new CardInfo(c.uuid(), c.index(), c.name(), null, null, null, null, null));
            }
            replay.feed(n.name(), new Hello(1, n.name(), "rules-test", "gpuwatch rules test", null, null, n.labels(),
                    cards), START_MS);
        }
        List<TestFile.InputEvent> events = new ArrayList<>(test.events());
        events.sort(Comparator.comparingLong(TestFile.InputEvent::atMs));
        List<TestFile.AlertCheck> checks = new ArrayList<>(test.checks());
        checks.sort(Comparator.comparingLong(TestFile.AlertCheck::evalMs));
        int steps = 0;
        for (TestFile.InputSeries s : test.series()) {
            steps = Math.max(steps, s.values().length());
        }
        // a scheduled task with an end is listed until then, series or not
        for (TestFile.ScheduledTask st : test.scheduled()) {
            if (st.untilMs() != Long.MAX_VALUE) {
                steps = (int) Math.max(steps, (st.untilMs() + test.intervalMs() - 1) / test.intervalMs());
            }
        }
        Map<TestFile.AlertCheck, List<String>> failures = new IdentityHashMap<>();
        int e = 0;
        int step = 0;
        int k = 0;
        while (true) {
            long nextEvent = e < events.size() ? events.get(e).atMs() : Long.MAX_VALUE;
            long nextStep = step < steps ? step * test.intervalMs() : Long.MAX_VALUE;
            long next = Math.min(nextEvent, nextStep);
            while (k < checks.size() && checks.get(k).evalMs() < next) {
                TestFile.AlertCheck c = checks.get(k++);
                replay.advanceTo(START_MS + c.evalMs());
                List<String> f = verify(c);
                if (!f.isEmpty()) {
                    failures.put(c, f);
                }
            }
            if (next == Long.MAX_VALUE) {
                break;
            }
            if (nextEvent <= nextStep) {
                event(events.get(e++));
            } else {
                samples(step++);
            }
        }
        List<String> messages = new ArrayList<>();
        for (TestFile.AlertCheck c : test.checks()) {
            messages.addAll(failures.getOrDefault(c, List.of()));
        }
        for (Diagnostic d : replay.runtimeErrors()) {
            messages.add(d.toString());
        }
        return new TestResult(test.name(), messages.isEmpty(), messages);
    }

    private void event(TestFile.InputEvent e) {
        replay.feed(e.node(), new Event(seq(e.node()), START_MS + e.atMs(), e.uuid(), e.kind(), e.xid(), e.text(),
                e.pid()), START_MS + e.atMs());
    }

    /** One sample per node that has anything to report at this step; a node with nothing stays silent. */
    private void samples(int step) {
        long t = step * test.intervalMs();
        for (TestFile.NodeSetup n : test.nodes()) {
            List<CardReading> readings = new ArrayList<>();
            for (TestFile.CardSetup c : n.cards()) {
                CardReading r = reading(c, step, t);
                if (r != null) {
                    readings.add(r);
                }
            }
            if (!readings.isEmpty()) {
                replay.feed(n.name(), new Sample(seq(n.name()), START_MS + t, readings), START_MS + t);
            }
        }
        appAndSched(step, t);
    }

    /** A task's app frame as one node relays it: one replica of the task. */
    private record Replica(String node, String task) {
    }

    /**
     * One app frame per task and relaying node, and one sched frame per queue, that has a value at this step;
     * a task series without a `node` and the queues are relayed by the first node of the test (a real gateway
     * takes them from whichever connection carries them).
     */
    private void appAndSched(int step, long t) {
        String first = test.nodes().isEmpty() ? "rules-test" : test.nodes().get(0).name();
        Map<Replica, MetricValues.Builder> apps = new LinkedHashMap<>();
        Map<String, String> businesses = new HashMap<>();
        Map<String, MetricValues.Builder> queues = new LinkedHashMap<>();
        for (TestFile.InputSeries s : test.series()) {
            double v = s.values().at(step);
            if (Double.isNaN(v) || s.uuid() != null) {
                continue;
            }
            if (s.task() != null) {
                apps.computeIfAbsent(new Replica(s.node() == null ? first : s.node(), s.task()),
                        k -> MetricValues.builder()).set(Metric.byField(s.metric()), v);
            } else {
                queues.computeIfAbsent(s.queue(), k -> MetricValues.builder()).set(Metric.byField(s.metric()), v);
            }
            if (s.business() != null) {
                businesses.put(s.task(), s.business());
            }
        }
        for (Map.Entry<Replica, MetricValues.Builder> a : apps.entrySet()) {
            String relay = a.getKey().node();
            replay.feed(relay, new App(seq(relay), START_MS + t, a.getKey().task(), businesses.get(a.getKey().task()),
                    "rules-test", a.getValue().build()), START_MS + t);
        }
        Map<String, List<SchedTask>> listed = new LinkedHashMap<>();
        for (TestFile.ScheduledTask st : test.scheduled()) {
            if (st.listedAt(t)) {
                listed.computeIfAbsent(st.queue(), k -> new ArrayList<>()).add(st.listing());
                queues.computeIfAbsent(st.queue(), k -> MetricValues.builder());
            }
        }
        String relay = first;
        for (Map.Entry<String, MetricValues.Builder> q : queues.entrySet()) {
            replay.feed(relay, new Sched(seq(relay), START_MS + t, q.getKey(), q.getValue().build(),
                    listed.getOrDefault(q.getKey(), List.of())), START_MS + t);
        }
    }

    private CardReading reading(TestFile.CardSetup card, int step, long t) {
        boolean any = false;
        boolean stale = false;
        MetricValues.Builder b = MetricValues.builder();
        for (TestFile.InputSeries s : test.series()) {
            if (!card.uuid().equals(s.uuid())) {
                continue;
            }
            if (step < s.values().length() && s.values().isStale(step)) {
                stale = true;
            }
            double v = s.values().at(step);
            if (!Double.isNaN(v)) {
                b.set(Metric.byField(s.metric()), v);
                any = true;
            }
        }
        if (!any && !stale) {
            return null;
        }
        List<ProcessInfo> processes = new ArrayList<>();
        for (TestFile.ProcessSetup p : card.processes()) {
            if (p.runsAt(t)) {
                processes.add(new ProcessInfo(p.pid(), null, p.task(), p.owner(), p.business()));
            }
        }
        return new CardReading(card.uuid(), stale ? MetricValues.empty() : b.build(), processes);
    }

    private long seq(String node) {
        return seqs.merge(node, 1L, Long::sum);
    }

    private List<String> verify(TestFile.AlertCheck c) {
        List<AlertDiff.Firing> got = new ArrayList<>();
        for (Replay.Sent s : replay.firing()) {
            if (c.alertname().equals(s.rule())) {
                Map<String, String> labels = new HashMap<>(s.scope());
                labels.putAll(s.notification().labels());
                Map<String, String> a = s.notification().annotations();
                got.add(new AlertDiff.Firing(labels, a.getOrDefault("summary", ""), a.getOrDefault("description", "")));
            }
        }
        String where = file.file() + ":" + c.place() + ": at " + c.evalText() + ", ";
        List<String> out = new ArrayList<>();
        List<String> diff = AlertDiff.diff(c.alerts(), got);
        if (diff != null) {
            out.add(where + "firing alerts of " + c.alertname() + " differ (expected " + c.alerts().size()
                    + ", got " + got.size() + ")\n" + String.join("\n", diff));
        }
        if (c.notifications() != null) {
            int firing = 0;
            int resolved = 0;
            for (Replay.Sent s : replay.sent()) {
                if (c.alertname().equals(s.rule())) {
                    if (s.firing()) {
                        firing++;
                    } else {
                        resolved++;
                    }
                }
            }
            List<String> counts = AlertDiff.counts(c.notifications(), firing, resolved);
            if (counts != null) {
                out.add(where + "notifications of " + c.alertname() + " sent so far differ\n"
                        + String.join("\n", counts));
            }
        }
        return out;
    }
}
