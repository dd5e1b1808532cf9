package io.gpuwatch.cli;

import io.gpuwatch.cli.alerting.AlertingFile;
import io.gpuwatch.cli.alerting.AlertingLoad;
import io.gpuwatch.cli.alerting.Wiring;
import io.gpuwatch.gateway.escalation.StepReceivers;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.receiver.console.ConsoleReceiver;
import io.gpuwatch.notify.receiver.webhook.HttpAuth;
import io.gpuwatch.notify.receiver.webhook.WebhookConfig;
import io.gpuwatch.notify.receiver.webhook.WebhookReceiver;
import io.gpuwatch.notify.secret.SecretSource;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Receiver options shared by {@code gateway} and {@code demo}: an alerting file with receivers and routing, or
 * (without one) the console and webhooks, each notification to all of them at once.
 */
final class Receivers {
    @Option(names = "--alerting", paramLabel = "FILE",
            description = "alerting file: receivers, routing tree, time intervals, inhibit rules, owners "
                    + "(see examples/alerting/gpuwatch.yml); without it every notification goes to the console "
                    + "and the --webhook URLs at once")
    Path alerting;

    @Option(names = "--webhook", paramLabel = "URL",
            description = "send notifications to this Alertmanager-compatible webhook (repeatable)")
    List<String> webhooks = new ArrayList<>();

    @Option(names = "--webhook-bearer-env", paramLabel = "VAR",
            description = "environment variable holding a bearer token for the webhooks")
    String bearerEnv;

    @Option(names = "--no-console", description = "do not print notifications on stdout")
    boolean noConsole;

    @Option(names = "--color", description = "colour the console lines")
    boolean colour;

    /** Shared by every receiver made here, and kept so that Vert.x does not close it while they run. */
    private WebClient client;

    /** What notifications go to and how: the routing is null for every notification to every receiver. */
    record Delivery(List<Receiver> receivers, RoutingConfig routing, StepReceivers steps) {
    }

    /**
     * Reads the alerting file, printing every diagnostic GCC-style to {@code err}; null when no file was asked
     * for. A load that is not {@link AlertingLoad#ok()} has had its errors printed, and the command exits 1.
     */
    AlertingLoad alertingFile(PrintWriter err) {
        if (alerting == null) {
            return null;
        }
        AlertingLoad load = AlertingFile.load(alerting, SecretSource.system(), Set.of());
        load.diagnostics().forEach(err::println);
        if (!load.ok()) {
            int errors = load.errors().size();
            err.println(errors + (errors == 1 ? " error" : " errors") + " in " + alerting);
        }
        err.flush();
        return load;
    }

    /**
     * The receivers and routing the options ask for: the alerting file's when {@code file} is not null (it must
     * be ok), else the console and webhooks; fails with a message naming the option when one is wrong.
     */
    Delivery build(Vertx vertx, String externalUrl, AlertingLoad file) {
        return build(vertx, externalUrl, file, () -> Roster.EMPTY);
    }

    /**
     * As {@link #build(Vertx, String, AlertingLoad)}, with the chat receivers' mentions read from the roster
     * {@code roster} holds at each send; a {@code mention:} of a schedule or layer the roster lacks fails with its
     * place.
     */
    Delivery build(Vertx vertx, String externalUrl, AlertingLoad file, Supplier<Roster> roster) {
        if (file != null) {
            if (!webhooks.isEmpty() || bearerEnv != null) {
                throw new IllegalArgumentException("--webhook: the receivers come from the --alerting file; add the "
                        + "webhook there as a receiver of type webhook");
            }
            client = WebClient.create(vertx);
            List<String> problems = file.escalationProblems(roster.get());
            if (!problems.isEmpty() && !file.routing().escalationPolicies().isEmpty()) {
                throw new IllegalArgumentException(String.join("\n", problems));
            }
            Wiring wiring = new Wiring(vertx, client, externalUrl, System.out, roster);
            return new Delivery(file.create(wiring), file.routing(), file.stepReceivers(wiring));
        }
        return new Delivery(build(vertx, externalUrl), null, null);
    }

    /** The console and webhook receivers the options ask for. */
    private List<Receiver> build(Vertx vertx, String externalUrl) {
        List<Receiver> out = new ArrayList<>();
        if (!noConsole) {
            out.add(new ConsoleReceiver("console", System.out, colour, InstantSource.system()));
        }
        HttpAuth auth = HttpAuth.NONE;
        if (bearerEnv != null) {
            String token = System.getenv(bearerEnv);
            if (token == null || token.isBlank()) {
                throw new IllegalArgumentException("--webhook-bearer-env: environment variable " + bearerEnv + " is not set");
            }
            auth = new HttpAuth.Bearer(token.strip());
        }
        client = webhooks.isEmpty() ? null : WebClient.create(vertx);
        for (int i = 0; i < webhooks.size(); i++) {
            WebhookConfig base = WebhookConfig.of(webhooks.get(i));
            WebhookConfig config = new WebhookConfig(base.url(), auth, base.timeoutMs(), base.maxAttempts(),
                    base.initialBackoffMs(), base.maxBackoffMs(), base.maxAlerts());
            out.add(WebhookReceiver.create(vertx, client, "webhook-" + (i + 1), config, externalUrl));
        }
        return out;
    }
}
