package io.gpuwatch.cli;

import io.gpuwatch.gateway.coverage.CoverageReport;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code gpuwatch report …}: reports a running gateway answers over its API, printed for people or scripts. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Reports from a running gateway's API.", subcommands = ReportCommand.Coverage.class)
final class ReportCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Output formats of a report. */
    enum Format { MD, JSON }

    /** {@code gpuwatch report coverage}: which signals of each layer arrive, per pool, card model and driver. */
    @Command(name = "coverage", mixinStandardHelpOptions = true,
            description = "Which signals of each layer arrive from the fleet, per pool, card model and driver, and "
                    + "which loaded rules cannot fire for want of the missing ones (GET /api/v1/coverage; "
                    + "docs/operations.md, Coverage).")
    static final class Coverage implements Callable<Integer> {
        @Option(names = "--gateway", paramLabel = "URL", defaultValue = "http://127.0.0.1:9464",
                description = "the gateway's HTTP API (default: ${DEFAULT-VALUE})")
        String gateway;

        @Option(names = "--token-file", paramLabel = "FILE",
                description = "file holding an API token of role viewer or above (a gateway without --api-tokens "
                        + "needs none)")
        Path tokenFile;

        @Option(names = "--format", paramLabel = "md|json", defaultValue = "MD",
                description = "md (default) for people, json as the API answers it")
        Format format;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws InterruptedException {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            URI uri;
            try {
                uri = URI.create(gateway.replaceAll("/+$", "") + "/api/v1/coverage");
                if (uri.getScheme() == null || !uri.getScheme().matches("https?")) {
                    throw new IllegalArgumentException("expected http:// or https://");
                }
            } catch (IllegalArgumentException e) {
                err.println("--gateway: not an http(s) URL: " + gateway + " (" + e.getMessage() + ")");
                return 2;
            }
            HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET();
            if (tokenFile != null) {
                String token;
                try {
                    token = Files.readString(tokenFile).strip();
                } catch (IOException e) {
                    err.println("--token-file: cannot read " + tokenFile + ": " + e.getMessage());
                    return 2;
                }
                if (token.isEmpty()) {
                    err.println("--token-file: " + tokenFile + " is empty");
                    return 2;
                }
                req.header("Authorization", "Bearer " + token);
            }
            HttpResponse<String> r;
            try {
                r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()
                        .send(req.build(), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                err.println("report coverage: cannot reach " + uri + ": " + e);
                return 1;
            }
            if (r.statusCode() != 200) {
                err.println("report coverage: " + uri + " answered " + r.statusCode() + ": " + r.body().strip()
                        + (r.statusCode() == 401 ? " (give --token-file with a viewer's API token)" : ""));
                return 1;
            }
            JsonObject report;
            try {
                report = new JsonObject(r.body());
            } catch (DecodeException e) {
                err.println("report coverage: " + uri + " answered no JSON: " + e.getMessage());
                return 1;
            }
            out.print(format == Format.JSON ? report.encodePrettily() + "\n" : CoverageReport.markdown(report));
            out.flush();
            return 0;
        }
    }
}
