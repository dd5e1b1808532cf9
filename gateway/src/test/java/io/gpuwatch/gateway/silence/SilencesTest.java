package io.gpuwatch.gateway.silence;

import io.gpuwatch.gateway.match.Matcher;
import io.gpuwatch.gateway.match.MatcherParser;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SilencesTest {
    private static final Instant T0 = Instant.parse("2025-03-10T12:00:00Z");
    private static final Map<String, String> N1_HOT = Map.of("alertname", "gpu-hot", "node", "n1", "uuid", "GPU-1");
    private static final Map<String, String> N2_HOT = Map.of("alertname", "gpu-hot", "node", "n2", "uuid", "GPU-9");

    private final AtomicInteger counter = new AtomicInteger();
    private final Silences silences = new Silences(() -> "s" + counter.incrementAndGet());

    private static Instant at(long minutes) {
        return T0.plus(Duration.ofMinutes(minutes));
    }

    private static List<Matcher> matchers(String text) throws Exception {
        return MatcherParser.parseList(text);
    }

    @Test
    void changesAreCountedAndTheClockTurningASilenceOnOrOffIsSeen() throws Exception {
        long before = silences.changes();
        String id = silences.create(matchers("{node=\"n1\"}"), at(10), at(70), "ana", "reboot", at(0)).silence().id();
        assertTrue(silences.changes() > before, "a new silence is a change");
        assertFalse(silences.turnsBetween(at(0), at(9)));
        assertTrue(silences.turnsBetween(at(9), at(10)), "it starts at 10");
        assertFalse(silences.turnsBetween(at(10), at(69)), "a start at the lower bound was seen by the call before");
        assertTrue(silences.turnsBetween(at(69), at(70)), "it ends at 70");

        Silence made = silences.get(id).orElseThrow();
        long counted = silences.changes();
        silences.forget(id);
        assertEquals(List.of(), silences.list());
        silences.restore(made);
        assertEquals(List.of(made), silences.list(), "a silence read back from the store");
        assertEquals(List.of(id), silences.silenced(N1_HOT, at(20)));
        assertEquals(counted + 2, silences.changes());
    }

    @Test
    void aSilenceMutesMatchingAlertsOnlyWhileActive() throws Exception {
        Silences.Result r = silences.create(matchers("{node=\"n1\"}"), at(10), at(70), "ana", "reboot", at(0));
        assertTrue(r.ok(), r.errors().toString());
        Silence s = r.silence();
        assertEquals("s1", s.id());
        assertEquals(Silence.State.PENDING, s.state(at(9)));
        assertEquals(List.of(), silences.silenced(N1_HOT, at(9)));
        assertEquals(Silence.State.ACTIVE, s.state(at(10)));
        assertEquals(List.of("s1"), silences.silenced(N1_HOT, at(10)));
        assertEquals(List.of(), silences.silenced(N2_HOT, at(10)), "other node");
        assertEquals(List.of("s1"), silences.silenced(N1_HOT, at(69)));
        assertEquals(List.of(), silences.silenced(N1_HOT, at(70)), "endsAt is exclusive");
        assertEquals(Silence.State.EXPIRED, silences.get("s1").orElseThrow().state(at(70)));
    }

    @Test
    void everySilenceThatMatchesIsNamed() throws Exception {
        silences.create(matchers("alertname=gpu-hot"), null, at(60), "ana", "", at(0));
        silences.create(matchers("{node=~\"n[12]\", uuid!=GPU-9}"), null, at(60), "bo", "", at(0));
        assertEquals(List.of("s1", "s2"), silences.silenced(N1_HOT, at(1)));
        assertEquals(List.of("s1"), silences.silenced(N2_HOT, at(1)));
    }

    @Test
    void expiringEndsASilenceAtOnceAndKeepsItForAudit() throws Exception {
        silences.create(matchers("node=n1"), null, at(60), "ana", "maintenance", at(0));
        silences.create(matchers("node=n2"), at(30), at(60), "ana", "later", at(0));
        assertTrue(silences.expire("s1", at(5)));
        assertTrue(silences.expire("s2", at(5)), "a pending one never starts");
        assertFalse(silences.expire("s1", at(6)), "already expired");
        assertFalse(silences.expire("nope", at(6)));
        assertEquals(List.of(), silences.silenced(N1_HOT, at(5)));
        assertEquals(List.of(), silences.silenced(N2_HOT, at(40)));
        Silence kept = silences.get("s1").orElseThrow();
        assertEquals(at(5), kept.endsAt());
        assertEquals("maintenance", kept.comment());
        assertEquals(2, silences.list(Silence.State.EXPIRED, at(5)).size());

        assertEquals(0, silences.collect(at(60), Duration.ofHours(1)), "within retention");
        assertEquals(2, silences.collect(at(66), Duration.ofHours(1)));
        assertEquals(List.of(), silences.list());
    }

    @Test
    void changingTheMatchersOfAnActiveSilenceExpiresItAndStartsANewOne() throws Exception {
        silences.create(matchers("node=n1"), null, at(60), "ana", "", at(0));
        Silences.Result longer = silences.update("s1", matchers("node=n1"), null, at(120), "ana", "longer", at(10));
        assertEquals("s1", longer.silence().id(), "only the end changed: in place");
        assertEquals(at(120), silences.get("s1").orElseThrow().endsAt());

        Silences.Result wider = silences.update("s1", matchers("node=~\"n1|n2\""), null, at(120), "ana", "", at(20));
        assertEquals("s2", wider.silence().id());
        assertEquals(at(20), wider.silence().startsAt());
        assertEquals(at(20), silences.get("s1").orElseThrow().endsAt(), "the old one ends where the new one starts");
        assertEquals(List.of("s2"), silences.silenced(N2_HOT, at(21)));
        assertFalse(silences.update("s1", matchers("node=n1"), null, at(200), "ana", "", at(30)).ok(),
                "an expired silence cannot change");
    }

    @Test
    void invalidSilencesAreRefusedWithReasons() throws Exception {
        Silences.Result r = silences.create(matchers("node=~\".*\""), at(10), at(5), "", "", at(0));
        assertFalse(r.ok());
        assertEquals(List.of("at least one matcher must require a non-empty value (node=~\".*\" also matches "
                        + "alerts without the label)", "endsAt (2025-03-10T12:05:00Z) must be after startsAt "
                        + "(2025-03-10T12:10:00Z)", "a silence needs createdBy, the person or tool that made it"),
                r.errors());
        assertFalse(silences.create(List.of(), null, at(5), "ana", "", at(0)).ok());
        assertFalse(silences.create(matchers("node=n1"), at(-20), at(-10), "ana", "", at(0)).ok(), "in the past");
        assertEquals(List.of(), silences.list(), "nothing was stored");
    }
}
