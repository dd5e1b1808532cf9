package io.gpuwatch.gateway.escalation;

import io.gpuwatch.gateway.route.EscalationPolicy;
import io.gpuwatch.gateway.route.EscalationStep;
import io.gpuwatch.gateway.route.EscalationTarget;
import io.gpuwatch.gateway.store.Escalation;
import io.gpuwatch.notify.Notification;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three steps (primary 5 min, secondary 10 min, lead 15 min), repeated once, on a clock moved by hand: which
 * step is paged when, and how an acknowledgement at each moment, its withdrawal and a resolution change it.
 */
class EscalationsTest {
    private static final Instant T0 = Instant.parse("2026-12-12T09:00:00Z");
    private static final EscalationPolicy POLICY = new EscalationPolicy("gpu-page", List.of(
            step("primary", 5), step("secondary", 10), step("lead", 15)), 1, "alerting.yml", 1, 1);
    private static final Notification ALERT = new Notification("fp1", Notification.Status.FIRING,
            Map.of("alertname", "GpuXid79", "node", "n1"), Map.of(), T0, null, "");

    private Instant now = T0;
    private final Escalations escalations = new Escalations(Map.of("gpu-page", POLICY), () -> now);
    private final List<String> paged = new ArrayList<>();
    private boolean acked;
    private boolean live = true;

    private static EscalationStep step(String layer, int minutes) {
        return new EscalationStep(List.of(EscalationTarget.layer("gpu-platform", layer, "alerting.yml", 1, 1)), List.of("gpu-feishu"),
                Duration.ofMinutes(minutes));
    }

    /** Moves the clock to {@code minutes} after the alert fired and runs one pass, recording what it paged. */
    private Escalations.Pass at(int minutes) {
        now = T0.plus(Duration.ofMinutes(minutes));
        List<Escalations.Candidate> candidates = live
                ? List.of(new Escalations.Candidate(ALERT, T0.toEpochMilli(), "gpu-page", acked)) : List.of();
        Escalations.Pass pass = escalations.advance(candidates);
        for (Escalations.Page p : pass.pages()) {
            paged.add(minutes + ":" + p.escalation().round() + "/" + p.step().targets().get(0).layer());
        }
        return pass;
    }

    private Escalation state() {
        return escalations.of("fp1").orElseThrow();
    }

    @Test
    void unacknowledgedItWalksEveryStepThenRepeatsOnceThenStops() {
        for (int m = 0; m <= 70; m++) {
            at(m);
        }
        // steps at 0, 5, 15; the second round at 30, 35, 45; the last step's timeout ends it at 60
        assertEquals(List.of("0:0/primary", "5:0/secondary", "15:0/lead", "30:1/primary", "35:1/secondary",
                "45:1/lead"), paged);
        assertEquals(Escalation.State.EXHAUSTED, state().state());
        assertEquals(null, state().deadline());
    }

    @Test
    void anAcknowledgementBeforeTheFirstTimeoutStopsItAtTheFirstStep() {
        at(0);
        at(4);
        acked = true;
        at(4);
        for (int m = 5; m <= 70; m++) {
            at(m);
        }
        assertEquals(List.of("0:0/primary"), paged);
        assertEquals(Escalation.State.ACKNOWLEDGED, state().state());
        assertEquals(0, state().step());
    }

    @Test
    void anAcknowledgementBetweenStepsStopsItThere() {
        at(0);
        at(5);
        at(10);
        acked = true;
        for (int m = 10; m <= 70; m++) {
            at(m);
        }
        assertEquals(List.of("0:0/primary", "5:0/secondary"), paged);
        assertEquals(1, state().step());
    }

    @Test
    void anAcknowledgementInTheSameInstantAsADeadlineWinsOverTheNextStep() {
        at(0);
        acked = true;
        at(5);
        assertEquals(List.of("0:0/primary"), paged);
    }

    @Test
    void anAcknowledgementAfterTheLastStepChangesNothingAndItsWithdrawalPagesNobody() {
        for (int m = 0; m <= 61; m++) {
            at(m);
        }
        assertEquals(Escalation.State.EXHAUSTED, state().state());
        acked = true;
        at(62);
        acked = false;
        for (int m = 63; m <= 120; m++) {
            at(m);
        }
        assertEquals(6, paged.size(), paged.toString());
        assertEquals(Escalation.State.EXHAUSTED, state().state());
    }

    @Test
    void anAcknowledgementDuringTheRepeatStopsIt() {
        for (int m = 0; m <= 36; m++) {
            at(m);
        }
        acked = true;
        for (int m = 37; m <= 120; m++) {
            at(m);
        }
        assertEquals(List.of("0:0/primary", "5:0/secondary", "15:0/lead", "30:1/primary", "35:1/secondary"), paged);
        assertEquals(1, state().round());
        assertEquals(Escalation.State.ACKNOWLEDGED, state().state());
    }

    @Test
    void withdrawingTheAcknowledgementRestartsTheHeldStepsTimeout() {
        at(0);
        at(5);
        acked = true;
        at(7);
        at(40);
        acked = false;
        Escalations.Pass pass = at(50);
        assertTrue(pass.pages().isEmpty(), "taking the acknowledgement back pages nobody at once");
        assertEquals(Instant.parse("2026-12-12T10:00:00Z"), state().deadline(), "the secondary's 10 minutes again");
        for (int m = 51; m <= 59; m++) {
            at(m);
        }
        assertEquals(List.of("0:0/primary", "5:0/secondary"), paged);
        at(60);
        assertEquals(List.of("0:0/primary", "5:0/secondary", "60:0/lead"), paged);
    }

    @Test
    void resolvingEndsItAndAFreshEpisodeStartsOver() {
        at(0);
        at(5);
        live = false;
        Escalations.Pass pass = at(6);
        assertEquals(List.of("fp1"), pass.removed());
        assertTrue(escalations.of("fp1").isEmpty());
        for (int m = 7; m <= 70; m++) {
            at(m);
        }
        assertEquals(List.of("0:0/primary", "5:0/secondary"), paged);
    }

    @Test
    void aStateTakenBackResumesAtItsStepAndDeadlineWithoutPagingItAgain() {
        Escalations other = new Escalations(Map.of("gpu-page", POLICY), () -> now);
        at(0);
        at(5);
        Escalation kept = state();
        other.restore(kept);
        now = T0.plus(Duration.ofMinutes(14));
        Escalations.Candidate c = new Escalations.Candidate(ALERT, T0.toEpochMilli(), "gpu-page", false);
        assertTrue(other.advance(List.of(c)).pages().isEmpty(), "the secondary was paged before");
        now = T0.plus(Duration.ofMinutes(15));
        List<Escalations.Page> pages = other.advance(List.of(c)).pages();
        assertEquals(1, pages.size());
        assertEquals("lead", pages.get(0).step().targets().get(0).layer());
        assertEquals("escalation/fp1/" + T0.toEpochMilli() + "/0/2", pages.get(0).key());
    }

    @Test
    void aGatewayBackAfterAnHourPagesTheNextStepOnceAndWaitsItsTimeoutFromNow() {
        at(0);
        at(70);
        assertEquals(List.of("0:0/primary", "70:0/secondary"), paged);
        assertEquals(T0.plus(Duration.ofMinutes(80)), state().deadline());
    }
}
