package io.gpuwatch.cli.alerting;

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
 * The people a chat receiver mentions: for each schedule layer its {@code mention:} names, whoever is on call
 * there at the moment of sending, by their contact on the receiver's channel (someone without one is not
 * mentioned there).
 */
public final class OnCallMentions implements OnCall {
    private final Supplier<Roster> roster;
    private final List<MentionRef> refs;
    private final String channel;
    private final InstantSource clock;

    private OnCallMentions(Supplier<Roster> roster, List<MentionRef> refs, String channel, InstantSource clock) {
        this.roster = roster;
        this.refs = List.copyOf(refs);
        this.channel = channel;
        this.clock = clock;
    }

    /** As {@link #of(Supplier, List, String, InstantSource)} with a roster that never changes. */
    public static OnCall of(Roster roster, List<MentionRef> refs, String channel, InstantSource clock) {
        return of(() -> roster, refs, channel, clock);
    }

    /**
     * The mentions of {@code refs} on {@code channel}, looked up at {@code clock}'s time of each send in the roster
     * {@code roster} holds then (the on-call file reloads while the gateway runs); {@link OnCall#NOBODY} without
     * refs.
     *
     * @throws IllegalArgumentException naming the place of a ref whose schedule or layer the roster lacks now
     */
    public static OnCall of(Supplier<Roster> roster, List<MentionRef> refs, String channel, InstantSource clock) {
        if (refs.isEmpty()) {
            return NOBODY;
        }
        List<String> problems = problems(roster.get(), refs);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("\n", problems));
        }
        return new OnCallMentions(roster, refs, channel, clock);
    }

    /** Every ref whose schedule or layer {@code roster} lacks, as a {@code file:line:col: error: …} line. */
    public static List<String> problems(Roster roster, List<MentionRef> refs) {
        List<String> out = new ArrayList<>();
        for (MentionRef ref : refs) {
            Optional<Schedule> s = roster.schedule(ref.schedule());
            if (roster.schedules().isEmpty()) {
                out.add(ref.place() + ": error: `mention: " + ref + "` needs the on-call file that defines it "
                        + "(--oncall FILE)");
            } else if (s.isEmpty()) {
                out.add(ref.place() + ": error: no schedule `" + ref.schedule() + "` in the on-call file"
                        + DidYouMean.hint(ref.schedule(), roster.schedules().keySet()));
            } else if (s.get().layers().isEmpty()) {
                out.add(ref.place() + ": error: schedule `" + ref.schedule() + "` has no layers to mention");
            } else if (ref.layer() != null && s.get().layer(ref.layer()).isEmpty()) {
                List<String> layers = s.get().layers().stream().map(Layer::name).toList();
                out.add(ref.place() + ": error: schedule `" + ref.schedule() + "` has no layer `" + ref.layer()
                        + "`" + DidYouMean.hint(ref.layer(), layers) + " (" + String.join(", ", layers) + ")");
            }
        }
        return out;
    }

    @Override
    public List<String> addresses() {
        return named().stream().map(Named::address).toList();
    }

    @Override
    public List<Named> named() {
        Instant now = clock.instant();
        // one roster for the whole message, though a reload may swap it meanwhile
        Roster r = roster.get();
        Set<String> seen = new LinkedHashSet<>();
        List<Named> out = new ArrayList<>();
        for (MentionRef ref : refs) {
            // a reload that drops a mentioned layer is refused, so a ref always resolves; skipped if not
            Optional<Schedule> s = r.schedule(ref.schedule());
            Optional<Layer> layer = s.flatMap(sc -> ref.layer() == null
                    ? sc.layers().stream().findFirst() : sc.layer(ref.layer()));
            if (layer.isEmpty()) {
                continue;
            }
            s.get().onCall(layer.get(), now).flatMap(r::person).ifPresent(p -> p.contact(channel)
                    .filter(seen::add).ifPresent(a -> out.add(new Named(a, p.name()))));
        }
        return List.copyOf(out);
    }
}
