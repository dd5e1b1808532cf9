package io.gpuwatch.gateway.group;

import io.gpuwatch.gateway.route.GroupBy;
import io.gpuwatch.gateway.route.Route;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.RoutingLoad;
import io.gpuwatch.notify.Notification;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AggregatorTest {
    private static final Instant T0 = Instant.parse("2025-03-10T12:00:00Z");
    private static final RoutingConfig SIMPLE = load("""
            route:
              receiver: chat
              group_by: [alertname]
              group_wait: 30s
              group_interval: 5m
              repeat_interval: 1h
            """);

    private static RoutingConfig load(String yaml) {
        RoutingLoad load = RoutingConfig.parse("t.yml", yaml, null);
        assertTrue(load.ok(), load.diagnostics().toString());
        return load.config();
    }

    private static Instant at(long seconds) {
        return T0.plusSeconds(seconds);
    }

    private static Notification firing(String fp, String alertname, long startSecond) {
        return new Notification(fp, Notification.Status.FIRING, Map.of("alertname", alertname, "node", "n-" + fp,
                "severity", "page"), Map.of(), at(startSecond), null, "");
    }

    private static Notification resolved(Notification a, long endSecond) {
        return new Notification(a.fingerprint(), Notification.Status.RESOLVED, a.labels(), a.annotations(),
                a.startsAt(), at(endSecond), "");
    }

    /** The fingerprints of a flush's alerts, resolved ones marked with a trailing {@code -}. */
    private static List<String> shown(Flush f) {
        return f.alerts().stream()
                .map(a -> a.fingerprint() + (a.status() == Notification.Status.RESOLVED ? "-" : "")).toList();
    }

    /** Ticks every second from {@code from} to {@code to} inclusive, as the gateway's timer does. */
    private static List<Flush> run(Aggregator agg, long from, long to) {
        List<Flush> out = new ArrayList<>();
        for (long s = from; s <= to; s++) {
            out.addAll(agg.tick(at(s)));
        }
        return out;
    }

    @Test
    void theFirstNotificationWaitsGroupWaitAndCarriesWhatArrivedMeanwhile() {
        Aggregator agg = new Aggregator(SIMPLE, Muting.NONE);
        agg.receive(firing("a", "gpu-hot", 0), at(0));
        agg.receive(firing("b", "gpu-hot", 10), at(10));
        assertEquals(List.of(), run(agg, 0, 29));
        List<Flush> flushes = agg.tick(at(30));
        assertEquals(1, flushes.size());
        Flush f = flushes.get(0);
        assertEquals(List.of("a", "b"), shown(f));
        assertEquals(Flush.Reason.FIRST, f.reason());
        assertEquals("chat", f.receiver());
        assertEquals("{}:{alertname=\"gpu-hot\"}", f.groupKey());
        assertEquals(Map.of("alertname", "gpu-hot"), f.groupLabels());
        assertEquals(at(30), f.at());
    }

    @Test
    void laterAlertsAreBatchedUntilTheNextGroupInterval() {
        Aggregator agg = new Aggregator(SIMPLE, Muting.NONE);
        agg.receive(firing("a", "gpu-hot", 0), at(0));
        assertEquals(1, run(agg, 0, 30).size());
        agg.receive(firing("b", "gpu-hot", 40), at(40));
        agg.receive(firing("c", "gpu-hot", 200), at(200));
        assertEquals(List.of(), run(agg, 31, 329));
        List<Flush> next = agg.tick(at(330));
        assertEquals(1, next.size());
        assertEquals(List.of("a", "b", "c"), shown(next.get(0)));
        assertEquals(Flush.Reason.NEW_ALERTS, next.get(0).reason());
    }

    @Test
    void anUnchangedFiringGroupIsRepeatedOnTheFirstIntervalTickAfterRepeatInterval() {
        Aggregator agg = new Aggregator(load("""
                route:
                  receiver: chat
                  group_wait: 30s
                  group_interval: 5m
                  repeat_interval: 61m
                """), Muting.NONE);
        agg.receive(firing("a", "gpu-hot", 0), at(0));
        List<Flush> all = run(agg, 0, 30 + 300 * 14);
        assertEquals(List.of(at(30), at(30 + 300 * 13)), all.stream().map(Flush::at).toList(),
                "61m after 0:30 falls between ticks, so the repeat waits for the 13th");
        assertEquals(Flush.Reason.REPEAT, all.get(1).reason());
    }

    @Test
    void aFlapShorterThanGroupWaitIsNeverToldButABackloggedIncidentLongerThanItIs() {
        Aggregator agg = new Aggregator(SIMPLE, Muting.NONE);
        Notification flap = firing("a", "gpu-hot", 0);
        agg.receive(flap, at(0));
        agg.receive(resolved(flap, 10), at(10));
        assertEquals(List.of(), run(agg, 0, 400), "fired and resolved within group_wait: nothing to tell");

        // a probe re-sends the backlog of a gateway's downtime: an incident of 40 s reaches the group at once
        Notification incident = firing("b", "gpu-hot", 500);
        agg.receive(incident, at(560));
        agg.receive(resolved(incident, 540), at(560));
        List<Flush> flushes = run(agg, 560, 900);
        assertEquals(2, flushes.size(), flushes.toString());
        assertEquals(List.of("b"), shown(flushes.get(0)), "told firing at group_wait, as a clean run would have");
        assertEquals(at(590), flushes.get(0).at());
        assertEquals(List.of("b-"), shown(flushes.get(1)), "then its end, a group_interval later");
        assertEquals(at(890), flushes.get(1).at());
    }

    @Test
    void aResolvedAlertIsSentOnceThenDroppedAndAnEmptyGroupEnds() {
        Aggregator agg = new Aggregator(SIMPLE, Muting.NONE);
        Notification a = firing("a", "gpu-hot", 0);
        Notification b = firing("b", "gpu-hot", 0);
        agg.receive(a, at(0));
        agg.receive(b, at(0));
        run(agg, 0, 30);
        agg.receive(resolved(b, 100), at(100));
        List<Flush> next = run(agg, 31, 330);
        assertEquals(1, next.size());
        assertEquals(List.of("a", "b-"), shown(next.get(0)));
        assertEquals(Flush.Reason.RESOLVED, next.get(0).reason());
        assertEquals(List.of(), run(agg, 331, 630));
        assertEquals(1, agg.groups().size());
        assertEquals(List.of("a"), agg.groups().get(0).alerts().stream().map(Notification::fingerprint).toList());

        agg.receive(resolved(a, 700), at(700));
        List<Flush> last = run(agg, 631, 930);
        assertEquals(List.of("a-"), shown(last.get(0)));
        assertEquals(List.of(), agg.groups(), "nothing left to tell");
        agg.receive(resolved(a, 701), at(940));
        assertEquals(List.of(), agg.groups(), "a late resolution forms no group");
    }

    @Test
    void anAlertThatResolvesWithinGroupWaitIsNeverSent() {
        Aggregator agg = new Aggregator(SIMPLE, Muting.NONE);
        Notification a = firing("a", "gpu-hot", 0);
        agg.receive(a, at(0));
        agg.receive(resolved(a, 10), at(10));
        assertEquals(List.of(), run(agg, 0, 400));
        assertEquals(List.of(), agg.groups());
    }

    @Test
    void groupsSplitByGroupLabelsAndEachRouteGroupsOnItsOwn() {
        Aggregator agg = new Aggregator(RoutingConfig.defaults(), Muting.NONE);
        agg.receive(firing("a", "gpu-hot", 0), at(0));
        agg.receive(firing("b", "xid-fallen-off-bus", 0), at(0));
        List<Flush> flushes = agg.tick(at(10));
        assertEquals(List.of("paging {}/{severity=\"page\"}:{alertname=\"gpu-hot\", node=\"n-a\"}",
                        "chat {}/{severity=\"page\"}:{alertname=\"gpu-hot\", node=\"n-a\"}",
                        "paging {}/{severity=\"page\"}:{alertname=\"xid-fallen-off-bus\", node=\"n-b\"}",
                        "chat {}/{severity=\"page\"}:{alertname=\"xid-fallen-off-bus\", node=\"n-b\"}"),
                flushes.stream().map(f -> f.receiver() + " " + f.groupKey()).toList());
    }

    @Test
    void mutedAlertsAreLeftOutButStillResolveAndOnlyThoseNeverSentComeBackWhenUnmuted() {
        Set<String> muted = new HashSet<>();
        Aggregator agg = new Aggregator(SIMPLE, (alert, now) -> muted.contains(alert.fingerprint()));
        Notification a = firing("a", "gpu-hot", 0);
        Notification b = firing("b", "gpu-hot", 0);
        Notification c = firing("c", "gpu-hot", 0);
        agg.receive(a, at(0));
        agg.receive(b, at(0));
        agg.receive(c, at(0));
        muted.add("c");
        assertEquals(List.of("a", "b"), shown(run(agg, 0, 30).get(0)), "c was silenced before it was sent");

        muted.add("a");
        muted.add("b");
        agg.mutingChanged();
        agg.receive(resolved(b, 100), at(100));
        List<Flush> resolvedWhileMuted = run(agg, 31, 330);
        assertEquals(List.of("b-"), shown(resolvedWhileMuted.get(0)),
                "the receiver heard b fire, so it hears b end, silence or not");

        muted.clear();
        agg.mutingChanged();
        List<Flush> unmuted = run(agg, 331, 630);
        assertEquals(List.of("a", "c"), shown(unmuted.get(0)));
        assertEquals(Flush.Reason.NEW_ALERTS, unmuted.get(0).reason(), "c is new to the receiver");

        muted.add("a");
        agg.mutingChanged();
        assertEquals(List.of(), run(agg, 631, 930));
        muted.clear();
        agg.mutingChanged();
        assertEquals(List.of(), run(agg, 931, 4229),
                "the receiver heard a fire before its silence, so, as in Alertmanager, its end announces nothing");
        List<Flush> repeat = run(agg, 4230, 4230);
        assertEquals(Flush.Reason.REPEAT, repeat.get(0).reason(), "an hour after the last notification");
        assertEquals(List.of("a", "c"), shown(repeat.get(0)));
    }

    /** One group per alert, flushed at every tick: the tree the dispatcher builds without a routing file. */
    private static final RoutingConfig EVERY_TICK = new RoutingConfig(new Route("route", "{}", List.of(), "console",
            GroupBy.ALL, Duration.ZERO, Duration.ZERO, Duration.ofHours(4), true, List.of(), List.of(), List.of()),
            Map.of(), Map.of(), List.of());

    @Test
    void withoutAGroupIntervalAnUnchangedGroupIsNotLookedAtAgainUntilItChangesOrRepeats() {
        AtomicInteger looked = new AtomicInteger();
        Aggregator agg = new Aggregator(EVERY_TICK, (alert, now) -> {
            looked.incrementAndGet();
            return false;
        });
        List<Notification> alerts = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            alerts.add(firing("a" + i, "gpu-hot", 0));
            agg.receive(alerts.get(i), at(0));
        }
        assertEquals(10, agg.tick(at(0)).size());
        assertEquals(10, looked.get());

        assertEquals(List.of(), run(agg, 1, 3600), "nothing changed, nothing is sent");
        assertEquals(10, looked.get(), "and no unchanged group was even looked at");

        agg.receive(resolved(alerts.get(0), 3601), at(3601));
        List<Flush> resolution = agg.tick(at(3601));
        assertEquals(List.of(List.of("a0-")), resolution.stream().map(AggregatorTest::shown).toList(),
                "only the group that changed is flushed");
        assertEquals(10, looked.get());

        agg.mutingChanged();
        assertEquals(List.of(), agg.tick(at(3602)));
        assertEquals(19, looked.get(), "a change of muting has every group looked at once");
        assertEquals(List.of(), run(agg, 3603, 14_399));
        assertEquals(19, looked.get());

        List<Flush> repeats = agg.tick(at(14_400));
        assertEquals(9, repeats.size(), "each firing alert is repeated 4 h after it was sent");
        assertTrue(repeats.stream().allMatch(f -> f.reason() == Flush.Reason.REPEAT));
        assertEquals(List.of(), run(agg, 14_401, 18_000));
        assertEquals(28, looked.get());
    }

    @Test
    void aRouteInItsMuteIntervalSendsNothingUntilTheIntervalEnds() {
        RoutingConfig config = load("""
                time_intervals:
                  - name: lunch
                    time_intervals:
                      - times: [{start_time: "12:00", end_time: "13:00"}]
                route:
                  receiver: chat
                  group_wait: 30s
                  group_interval: 5m
                  mute_time_intervals: [lunch]
                """);
        Aggregator agg = new Aggregator(config, Muting.NONE);
        Notification a = firing("a", "gpu-hot", 0);
        agg.receive(a, at(0));
        agg.receive(firing("b", "gpu-hot", 0), at(0));
        assertEquals(List.of(), run(agg, 0, 3599), "12:00 to 13:00 UTC is muted");
        List<Flush> after = agg.tick(at(3630));
        assertEquals(Flush.Reason.FIRST, after.get(0).reason());
        assertEquals(List.of("a", "b"), shown(after.get(0)));
    }

    @Test
    void aLateTickFlushesOnceAndTheScheduleResumesFromIt() {
        Aggregator agg = new Aggregator(SIMPLE, Muting.NONE);
        agg.receive(firing("a", "gpu-hot", 0), at(0));
        agg.tick(at(30));
        agg.receive(firing("b", "gpu-hot", 50), at(50));
        assertEquals(1, agg.tick(at(2000)).size(), "the gateway was paused for half an hour");
        agg.receive(firing("c", "gpu-hot", 2001), at(2001));
        assertEquals(List.of(), agg.tick(at(2299)));
        assertEquals(1, agg.tick(at(2300)).size());
    }
}
