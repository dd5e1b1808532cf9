package io.gpuwatch.gateway.cluster;

import io.gpuwatch.gateway.match.MatcherParser;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.store.Acknowledgement;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The JSON text silences and acknowledgements travel between gateways as. */
class SharedFormTest {
    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00.123456789Z");
    private static final Instant MS = Instant.parse("2026-12-03T10:00:00.123Z");

    private static Silence silence(String id, Instant updatedAt) throws Exception {
        return new Silence(id, MatcherParser.parseList("{node=\"gpu-7\", alertname=~\"xid-.*\", uuid!=\"a\\\"b\"}"),
                T0, T0.plusSeconds(3600), "ana", "reboot \"gpu-7\"", updatedAt);
    }

    @Test
    void aSilenceComesBackAsItWasToTheMillisecondTheStoresKeep() throws Exception {
        Silence s = silence("s-1", T0);
        Silence back = SilenceForm.INSTANCE.decode("s-1", SilenceForm.INSTANCE.encode(s));
        assertEquals(new Silence("s-1", s.matchers(), MS, MS.plusSeconds(3600), "ana", "reboot \"gpu-7\"", MS), back);
        assertFalse(SilenceForm.INSTANCE.newer(s, back), "the same silence read back is not news");
        assertFalse(SilenceForm.INSTANCE.newer(back, s));
    }

    @Test
    void anAcknowledgementComesBackAsItWas() {
        Acknowledgement a = new Acknowledgement("fp-1", "bo", T0, null, "pagerduty");
        assertEquals(new Acknowledgement("fp-1", "bo", MS, "", "pagerduty"),
                AckForm.INSTANCE.decode("fp-1", AckForm.INSTANCE.encode(a)));
    }

    @Test
    void aWithdrawalComesBackWithdrawnAndAnAcknowledgementsTextDoesNotNameIt() {
        Acknowledgement w = new Acknowledgement("fp-1", "bo", T0, "not mine", "api", true);
        assertEquals(new Acknowledgement("fp-1", "bo", MS, "not mine", "api", true),
                AckForm.INSTANCE.decode("fp-1", AckForm.INSTANCE.encode(w)));
        // a gateway from before withdrawals reads an acknowledgement's text as it always did
        assertFalse(AckForm.INSTANCE.encode(new Acknowledgement("fp-1", "bo", T0, "", "api")).contains("withdrawn"));
    }

    @Test
    void theLaterWriteWinsAndATieGoesTheSameWayOnEveryGateway() throws Exception {
        Silence first = silence("s-1", T0);
        Silence later = silence("s-1", T0.plusMillis(1));
        assertTrue(SilenceForm.INSTANCE.newer(later, first));
        assertFalse(SilenceForm.INSTANCE.newer(first, later));
        Silence other = new Silence("s-1", first.matchers(), T0, T0.plusSeconds(60), "cy", "", T0);
        assertTrue(SilenceForm.INSTANCE.newer(other, first) != SilenceForm.INSTANCE.newer(first, other),
                "of two writes in one millisecond exactly one wins");
    }

    @Test
    void whatDoesNotReadIsRefusedNamingTheRecordAndTheField() {
        List<String[]> bad = List.of(
                new String[] {"{not json", "silence s-9: not a JSON object"},
                new String[] {"{\"v\":2,\"id\":\"s-9\"}", "silence s-9: written in version 2"},
                new String[] {"{\"id\":\"s-9\"}", "silence s-9: written in version null"},
                new String[] {"{\"v\":1,\"id\":\"s-8\"}", "silence s-9: its id field says s-8"},
                new String[] {"{\"v\":1,\"id\":\"s-9\",\"matchers\":[]}", "silence s-9: matchers: expected a non-empty"},
                new String[] {"{\"v\":1,\"id\":\"s-9\",\"matchers\":[\"node=~\\\"(\\\"\"]}", "silence s-9: matchers[0]"},
                new String[] {"{\"v\":1,\"id\":\"s-9\",\"matchers\":[\"node=a\"],\"startsAt\":\"noon\"}",
                        "silence s-9: startsAt: expected an RFC 3339 time, got noon"},
                new String[] {"{\"v\":1,\"id\":\"s-9\",\"matchers\":[\"node=a\"],\"startsAt\":\"2026-12-03T10:00:00Z\","
                        + "\"endsAt\":\"2026-12-03T11:00:00Z\",\"createdBy\":7}", "silence s-9: createdBy: expected"});
        for (String[] b : bad) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SilenceForm.INSTANCE.decode("s-9", b[0]), b[0]);
            assertTrue(e.getMessage().startsWith(b[1]), e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AckForm.INSTANCE.decode("fp-3", "{\"v\":1,\"fingerprint\":\"fp-3\",\"by\":\"bo\"}"));
        assertEquals("acknowledgement fp-3: at: expected non-empty text", e.getMessage());
    }
}
