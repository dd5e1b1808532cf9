package io.gpuwatch.gateway.escalation;

import io.gpuwatch.gateway.route.EscalationTarget;
import io.gpuwatch.gateway.schedule.Layer;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.schedule.Schedule;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.rules.source.DidYouMean;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Whom a step's page mentions on one channel: for each schedule layer of the step, whoever is on call there at
 * the moment of sending, and each person the step names, by their contact on that channel (someone without one
 * is not mentioned there).
 */
public final class StepMentions implements OnCall {
    private final Supplier<Roster> roster;
    private final List<EscalationTarget> targets;
    private final String channel;
    private final InstantSource clock;

    /** The mentions of {@code targets}, checked with {@link #problems}, on {@code channel}. */
    public StepMentions(Supplier<Roster> roster, List<EscalationTarget> targets, String channel, InstantSource clock) {
        this.roster = roster;
        this.targets = List.copyOf(targets);
        this.channel = channel;
        this.clock = clock;
    }

    @Override
    public List<String> addresses() {
        Instant now = clock.instant();
        // the roster in force now: the on-call file reloads
        Roster roster = this.roster.get();
        Set<String> out = new LinkedHashSet<>();
        for (EscalationTarget t : targets) {
            Optional<String> person = t.person() != null ? Optional.of(t.person())
                    : roster.schedule(t.schedule()).flatMap(s -> layer(s, t).flatMap(l -> s.onCall(l, now)));
            person.flatMap(roster::person).flatMap(p -> p.contact(channel)).ifPresent(out::add);
        }
        return List.copyOf(out);
    }

    private static Optional<Layer> layer(Schedule s, EscalationTarget t) {
        return t.layer() == null ? s.layers().stream().findFirst() : s.layer(t.layer());
    }

    /**
     * Every target whose schedule, layer or person {@code roster} lacks, as a {@code file:line:col: error: …}
     * line with the closest name.
     */
    public static List<String> problems(Roster roster, List<EscalationTarget> targets) {
        List<String> out = new ArrayList<>();
        for (EscalationTarget t : targets) {
            if (roster.people().isEmpty() && roster.schedules().isEmpty()) {
                out.add(t.place() + ": error: the escalation step's `" + t + "` needs the on-call file that "
                        + "defines it (--oncall FILE)");
            } else if (t.person() != null) {
                if (roster.person(t.person()).isEmpty()) {
                    out.add(t.place() + ": error: no person `" + t.person() + "` in the on-call file"
                            + DidYouMean.hint(t.person(), roster.people().keySet()));
                }
            } else {
                Optional<Schedule> s = roster.schedule(t.schedule());
                if (s.isEmpty()) {
                    out.add(t.place() + ": error: no schedule `" + t.schedule() + "` in the on-call file"
                            + DidYouMean.hint(t.schedule(), roster.schedules().keySet()));
                } else if (s.get().layers().isEmpty()) {
                    out.add(t.place() + ": error: schedule `" + t.schedule() + "` has no layers to page");
                } else if (t.layer() != null && s.get().layer(t.layer()).isEmpty()) {
                    List<String> layers = s.get().layers().stream().map(Layer::name).toList();
                    out.add(t.place() + ": error: schedule `" + t.schedule() + "` has no layer `" + t.layer() + "`"
                            + DidYouMean.hint(t.layer(), layers) + " (" + String.join(", ", layers) + ")");
                }
            }
        }
        return out;
    }
}
