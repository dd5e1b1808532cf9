package io.gpuwatch.cli;

import io.gpuwatch.gateway.GatewayConfig;
import io.vertx.core.Vertx;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What {@code gateway} and {@code demo} share about their notifications: where their links point
 * ({@code --public-url}, {@code --runbook-base-url}) and how long stopping may spend sending what is pending
 * ({@code --shutdown-timeout}), and the stop itself.
 */
final class NotifyOptions {
    @Option(names = "--public-url", paramLabel = "URL",
            description = "how people and services reach this gateway's HTTP API (e.g. https://gpuwatch.example.com): "
                    + "each alert's generatorURL (<URL>/api/v1/alerts/<fingerprint>) and the webhook's externalURL "
                    + "point there, and Slack and Teams digests show a chart served from it (without it they get a "
                    + "text sparkline); default for links: the address the gateway listens on")
    String publicUrl;

    @Option(names = "--runbook-base-url", paramLabel = "URL",
            description = "what a rule's runbook path is joined to in notifications (e.g. "
                    + "https://github.com/acme/gpu-runbooks/blob/main/), so runbooks arrive as links; without it the "
                    + "path is sent as the rule wrote it; a runbook that is already a URL is kept")
    String runbookBaseUrl;

    @Option(names = "--shutdown-timeout", paramLabel = "DURATION", defaultValue = "10s",
            description = "on SIGTERM or Ctrl-C, how long to spend sending pending notifications (resolutions "
                    + "included) before exiting; what is left stays in the --data-dir outbox for the next start "
                    + "(default: ${DEFAULT-VALUE})")
    String shutdownTimeout;

    private Duration timeout;

    /** Checks the options; false after saying on {@code err} which one is wrong and why. */
    boolean check(PrintWriter err) {
        for (String[] url : new String[][] {{"--public-url", publicUrl}, {"--runbook-base-url", runbookBaseUrl}}) {
            if (url[1] != null && !url[1].matches("https?://[^/\\s]+(/\\S*)?")) {
                err.println(url[0] + ": expected an http:// or https:// URL, got " + url[1]);
                err.flush();
                return false;
            }
        }
        try {
            timeout = Duration.parse("PT" + shutdownTimeout.toUpperCase());
        } catch (RuntimeException e) {
            timeout = null;
        }
        if (timeout == null || timeout.isNegative()) {
            err.println("--shutdown-timeout: expected a duration like 10s or 1m, got " + shutdownTimeout);
            err.flush();
            return false;
        }
        return true;
    }

    /** The URL links point to: {@code --public-url}, else {@code listening}. */
    String externalUrl(String listening) {
        return publicUrl != null ? publicUrl : listening;
    }

    /** {@code config} with the runbook base and shutdown timeout of these options; after {@link #check}. */
    GatewayConfig apply(GatewayConfig config) {
        return config.withRunbookBaseUrl(runbookBaseUrl).withShutdownTimeout(timeout);
    }

    /**
     * Stops the gateway deployed as {@code deployment} (it sends what is pending, for at most the shutdown
     * timeout) and then {@code vertx}: in that order, since closing Vert.x closes the receivers' HTTP clients.
     */
    void stop(Vertx vertx, String deployment) {
        try {
            vertx.undeploy(deployment).toCompletionStage().toCompletableFuture()
                    .get(timeout.toMillis() + 10_000, TimeUnit.MILLISECONDS);
        } catch (Exception ignored) {
            // Vert.x is closed next either way; the gateway logged what it could not send
        }
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // the process is ending either way
        }
    }
}
