package io.gpuwatch.cli;

import io.gpuwatch.gateway.capacity.Since;
import io.gpuwatch.gateway.coverage.CoverageReport;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code gpuwatch report …}: reports a running gateway answers over its API, printed for people or scripts. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Reports from a running gateway's API.",
        subcommands = {ReportCommand.Coverage.class, ReportCommand.Capacity.class})
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
        @Mixin
        Source source;

        @Option(names = "--format", paramLabel = "md|json", defaultValue = "MD",
                description = "md (default) for people, json as the API answers it")
        Format format;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws InterruptedException {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            Fetched r = source.fetch("/api/v1/coverage", "report coverage", err);
            if (r.body() == null) {
                return r.exit();
            }
            JsonObject report;
            try {
                report = new JsonObject(r.body());
            } catch (DecodeException e) {
                err.println("report coverage: " + source.gateway + " answered no JSON: " + e.getMessage());
                return 1;
            }
            out.print(format == Format.JSON ? report.encodePrettily() + "\n" : CoverageReport.markdown(report));
            out.flush();
            return 0;
        }
    }

    /** What a report's request brought back: the body of a 200, or null and the exit status after saying why. */
    record Fetched(String body, int exit) {
    }

    /** Where a report comes from: the gateway's API and the token it takes, as every report asks for them. */
    static final class Source {
        @Option(names = "--gateway", paramLabel = "URL", defaultValue = "http://127.0.0.1:9464",
                description = "the gateway's HTTP API (default: ${DEFAULT-VALUE})")
        String gateway;

        @Option(names = "--token-file", paramLabel = "FILE",
                description = "file holding an API token of role viewer or above (a gateway without --api-tokens "
                        + "needs none)")
        Path tokenFile;

        /**
         * GETs {@code pathAndQuery} from the gateway's API with the token in {@code tokenFile} (if any); anything
         * but a 200 is told on {@code err} under {@code command}'s name.
         */
        Fetched fetch(String pathAndQuery, String command, PrintWriter err) throws InterruptedException {
            URI uri;
            try {
                uri = URI.create(gateway.replaceAll("/+$", "") + pathAndQuery);
                if (uri.getScheme() == null || !uri.getScheme().matches("https?")) {
                    throw new IllegalArgumentException("expected http:// or https://");
                }
            } catch (IllegalArgumentException e) {
                err.println("--gateway: not an http(s) URL: " + gateway + " (" + e.getMessage() + ")");
                return new Fetched(null, 2);
            }
            HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).GET();
            if (tokenFile != null) {
                String token;
                try {
                    token = Files.readString(tokenFile).strip();
                } catch (IOException e) {
                    err.println("--token-file: cannot read " + tokenFile + ": " + e.getMessage());
                    return new Fetched(null, 2);
                }
                if (token.isEmpty()) {
                    err.println("--token-file: " + tokenFile + " is empty");
                    return new Fetched(null, 2);
                }
                req.header("Authorization", "Bearer " + token);
            }
            HttpResponse<String> r;
            try {
                r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()
                        .send(req.build(), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                err.println(command + ": cannot reach " + uri + ": " + e);
                return new Fetched(null, 1);
            }
            if (r.statusCode() != 200) {
                err.println(command + ": " + uri + " answered " + r.statusCode() + ": " + r.body().strip()
                        + (r.statusCode() == 401 ? " (give --token-file with a viewer's API token)" : ""));
                return new Fetched(null, 1);
            }
            return new Fetched(r.body(), 0);
        }
    }

    /** Output formats of the capacity report. */
    enum CapacityFormat { MD, JSON, HTML }

    /**
     * {@code gpuwatch report capacity}: which teams hold cards they do not use, what compute and tokens cost, and
     * where effective compute is lowest, over the gateway's usage history.
     */
    @Command(name = "capacity", mixinStandardHelpOptions = true,
            description = "Requested against used per pool and business, reclaimable card-hours, idle cards by owner, "
                    + "queue waits and what reclaiming would do to them, the tasks with the lowest effective compute, "
                    + "cost per effective PFLOP-hour per GPU model and pool, cost per million tokens per business "
                    + "(GET /api/v1/reports/capacity; docs/capacity.md).")
    static final class Capacity implements Callable<Integer> {
        @Mixin
        Source source;

        @Option(names = "--since", paramLabel = "DURATION", defaultValue = "7d",
                description = "how far back: 90m, 12h, 7d, 2w or a sum such as 1d12h (default: ${DEFAULT-VALUE}); "
                        + "at most the gateway's --history-retention")
        String since;

        @Option(names = "--format", paramLabel = "md|json|html", defaultValue = "MD",
                description = "md (default) for people, json as the API answers it, html: one page with charts")
        CapacityFormat format;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws InterruptedException {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            Since.Parsed window = Since.parse(since, Long.MAX_VALUE);
            if (!window.ok()) {
                err.println("--since: " + window.error());
                return 2;
            }
            Fetched r = source.fetch("/api/v1/reports/capacity?since="
                    + URLEncoder.encode(since.strip(), StandardCharsets.UTF_8) + "&format="
                    + format.name().toLowerCase(Locale.ROOT), "report capacity", err);
            if (r.body() == null) {
                return r.exit();
            }
            out.print(r.body().endsWith("\n") ? r.body() : r.body() + "\n");
            out.flush();
            return 0;
        }
    }
}
