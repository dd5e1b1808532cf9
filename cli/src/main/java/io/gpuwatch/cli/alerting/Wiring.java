package io.gpuwatch.cli.alerting;

import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.notify.oncall.OnCall;
import io.gpuwatch.notify.receiver.chat.ChatSending;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;

import java.io.PrintStream;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What receivers are made with: the Vert.x instance whose timers pace and retry them, one web client shared by
 * all (kept by the caller, since Vert.x closes a client nobody references), the gateway's external URL for
 * links back, the stream console receivers print to, and the on-call roster chat receivers mention people from
 * (the one in force at each send, since the on-call file reloads). {@code stepMentions}, when not null, gives by
 * channel whom a receiver made for an escalation step mentions instead of its own {@code mention:}.
 */
public record Wiring(Vertx vertx, WebClient client, String externalUrl, PrintStream console,
                     Supplier<Roster> roster, Function<String, OnCall> stepMentions) {
    /** Wiring without an on-call roster: a receiver with {@code mention:} cannot be made with it. */
    public Wiring(Vertx vertx, WebClient client, String externalUrl, PrintStream console) {
        this(vertx, client, externalUrl, console, () -> Roster.EMPTY);
    }

    /** Wiring for the receivers of the alerting file as written. */
    public Wiring(Vertx vertx, WebClient client, String externalUrl, PrintStream console, Supplier<Roster> roster) {
        this(vertx, client, externalUrl, console, roster, null);
    }

    /** The same wiring for a receiver an escalation step pages through, mentioning whom {@code mentions} gives. */
    public Wiring forStep(Function<String, OnCall> mentions) {
        return new Wiring(vertx, client, externalUrl, console, roster, mentions);
    }

    /** How a chat receiver or report target made with this wiring sends: on its timers and its client. */
    public ChatSending chatSending() {
        return ChatSending.of(vertx, client);
    }

    /** Whom a chat receiver on {@code channel} with {@code mention: refs} mentions when made with this wiring. */
    public OnCall mentions(List<MentionRef> refs, String channel) {
        return stepMentions != null ? stepMentions.apply(channel)
                : OnCallMentions.of(roster, refs, channel, InstantSource.system());
    }
}
