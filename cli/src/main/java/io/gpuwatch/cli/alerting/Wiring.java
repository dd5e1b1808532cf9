package io.gpuwatch.cli.alerting;

import io.gpuwatch.gateway.schedule.Roster;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;

import java.io.PrintStream;
import java.util.function.Supplier;

/**
 * What receivers are made with: the Vert.x instance whose timers pace and retry them, one web client shared by
 * all (kept by the caller, since Vert.x closes a client nobody references), the gateway's external URL for
 * links back, the stream console receivers print to, and the on-call roster chat receivers mention people from
 * (the one in force at each send, since the on-call file reloads).
 */
public record Wiring(Vertx vertx, WebClient client, String externalUrl, PrintStream console,
                     Supplier<Roster> roster) {
    /** Wiring without an on-call roster: a receiver with {@code mention:} cannot be made with it. */
    public Wiring(Vertx vertx, WebClient client, String externalUrl, PrintStream console) {
        this(vertx, client, externalUrl, console, () -> Roster.EMPTY);
    }
}
