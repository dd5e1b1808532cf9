package io.gpuwatch.cli.alerting;

import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;

import java.io.PrintStream;

/**
 * What receivers are made with: the Vert.x instance whose timers pace and retry them, one web client shared by
 * all (kept by the caller, since Vert.x closes a client nobody references), the gateway's external URL for
 * links back, and the stream console receivers print to.
 */
public record Wiring(Vertx vertx, WebClient client, String externalUrl, PrintStream console) {
}
