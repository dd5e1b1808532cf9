package io.gpuwatch.cli;

import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.receiver.console.ConsoleReceiver;
import io.gpuwatch.notify.receiver.webhook.HttpAuth;
import io.gpuwatch.notify.receiver.webhook.WebhookConfig;
import io.gpuwatch.notify.receiver.webhook.WebhookReceiver;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import picocli.CommandLine.Option;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/** Receiver options shared by {@code gateway} and {@code demo}. */
final class Receivers {
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

    /** The receivers the options ask for; fails with a message naming the option when one is wrong. */
    List<Receiver> build(Vertx vertx, String externalUrl) {
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
        WebClient client = webhooks.isEmpty() ? null : WebClient.create(vertx);
        for (int i = 0; i < webhooks.size(); i++) {
            WebhookConfig base = WebhookConfig.of(webhooks.get(i));
            WebhookConfig config = new WebhookConfig(base.url(), auth, base.timeoutMs(), base.maxAttempts(),
                    base.initialBackoffMs(), base.maxBackoffMs(), base.maxAlerts());
            out.add(WebhookReceiver.create(vertx, client, "webhook-" + (i + 1), config, externalUrl));
        }
        return out;
    }
}
