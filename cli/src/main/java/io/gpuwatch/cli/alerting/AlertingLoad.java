package io.gpuwatch.cli.alerting;

import io.gpuwatch.gateway.ack.PagerHook;
import io.gpuwatch.gateway.digest.DigestChannel;
import io.gpuwatch.gateway.digest.DigestSchedule;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.receiver.chat.ReportTarget;
import io.gpuwatch.rules.source.Diagnostic;

import io.gpuwatch.gateway.escalation.StepMentions;
import io.gpuwatch.gateway.escalation.StepReceivers;
import io.gpuwatch.gateway.route.EscalationTarget;
import io.gpuwatch.gateway.schedule.Roster;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * An alerting file as read: its receivers, its routing (null when anything is wrong), whether the file has a
 * {@code receivers:} section at all, and every diagnostic in file order.
 */
public record AlertingLoad(List<ReceiverSpec> receivers, RoutingConfig routing, boolean hasReceivers,
                           List<Diagnostic> diagnostics) {
    public AlertingLoad {
        receivers = List.copyOf(receivers);
        diagnostics = List.copyOf(diagnostics);
    }

    /** True when there is no error, so the receivers can be made and the routing used. */
    public boolean ok() {
        return routing != null && errors().isEmpty();
    }

    /** The errors only. */
    public List<Diagnostic> errors() {
        return diagnostics.stream().filter(d -> d.level() == Diagnostic.Level.ERROR).toList();
    }

    /** Makes every receiver, in file order. */
    public List<Receiver> create(Wiring wiring) {
        if (!ok()) {
            throw new IllegalStateException("an alerting file with errors has no receivers to make: " + errors());
        }
        return receivers.stream().map(r -> r.create(wiring)).toList();
    }

    /**
     * Makes the receivers escalation steps page through: the receiver of that name made anew with the step's
     * mentions.
     */
    public StepReceivers stepReceivers(Wiring wiring) {
        return (name, mentions) -> receivers.stream().filter(r -> r.name().equals(name)).findFirst()
                .map(r -> r.create(wiring.forStep(mentions)));
    }

    /**
     * Every escalation step's schedule, layer or person that {@code roster} lacks, as
     * {@code file:line:col: error: …} lines.
     */
    public List<String> escalationProblems(Roster roster) {
        if (routing == null) {
            return List.of();
        }
        List<EscalationTarget> targets = new ArrayList<>();
        routing.escalationPolicies().values().forEach(p -> p.steps().forEach(s -> targets.addAll(s.targets())));
        targets.sort(Comparator.comparingInt(EscalationTarget::line).thenComparingInt(EscalationTarget::column));
        return StepMentions.problems(roster, targets);
    }

    /**
     * Makes one digest channel per schedule of every receiver with a {@code digest:}, in file order; the
     * schedules of one receiver share its target, so they are paced together.
     */
    public List<DigestChannel> digests(Wiring wiring) {
        if (!ok()) {
            throw new IllegalStateException("an alerting file with errors has no digests to make: " + errors());
        }
        List<DigestChannel> out = new ArrayList<>();
        for (ReceiverSpec r : receivers) {
            if (r.digests().isEmpty()) {
                continue;
            }
            ReportTarget target = r.reports().create(wiring);
            for (DigestSchedule schedule : r.digests()) {
                out.add(new DigestChannel(r.name(), schedule, target));
            }
        }
        return out;
    }

    /**
     * The acknowledgement webhooks of the receivers with a {@code webhookSecret:}, in file order, then the card
     * callbacks of the Feishu receivers with a {@code callbackKey:}, for {@code Gateway.pagerHooks(..)}.
     */
    public List<PagerHook> pagerHooks() {
        if (!ok()) {
            throw new IllegalStateException("an alerting file with errors has no webhooks to take: " + errors());
        }
        List<PagerHook> hooks = new ArrayList<>(receivers.stream().filter(r -> r.webhookSecret() != null)
                .map(r -> new PagerHook(r.name(), PagerHook.Service.valueOf(r.type().toUpperCase(Locale.ROOT)),
                        r.webhookSecret()))
                .toList());
        receivers.stream().filter(r -> r.callbackKey() != null)
                .forEach(r -> hooks.add(new PagerHook(r.name(), PagerHook.Service.FEISHU_APP, r.callbackKey())));
        return List.copyOf(hooks);
    }
}
