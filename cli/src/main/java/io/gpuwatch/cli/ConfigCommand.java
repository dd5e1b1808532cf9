package io.gpuwatch.cli;

import io.gpuwatch.cli.alerting.AlertingFile;
import io.gpuwatch.cli.alerting.AlertingLoad;
import io.gpuwatch.cli.alerting.OnCallMentions;
import io.gpuwatch.cli.alerting.ReceiverSpec;
import io.gpuwatch.gateway.match.MatcherException;
import io.gpuwatch.gateway.match.MatcherParser;
import io.gpuwatch.gateway.route.Route;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.TimeInterval;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.notify.secret.SecretSource;
import io.gpuwatch.rules.source.Diagnostic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code gpuwatch config …}: tools for alerting configs (routes, time intervals, inhibition) that need no gateway. */
@Command(name = "config", mixinStandardHelpOptions = true,
        description = "Work with alerting configs (routing tree, owners, time intervals, inhibit rules) without a "
                + "gateway.",
        subcommands = {ConfigCommand.Check.class})
final class ConfigCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code gpuwatch config check FILE}: load and check receivers and routing; exit 1 on any error. */
    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Read an alerting config and print every problem GCC-style (file:line:col: error: …); "
                    + "exits 1 when there is an error. On success prints the routing tree. Format: docs/alerting.md.")
    static final class Check implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE", description = "the alerting config (YAML)")
        Path file;

        @Option(names = "--receivers", split = ",", paramLabel = "NAME",
                description = "for a config without `receivers:`, the receivers that exist; every receiver the "
                        + "config names must be one of them (without either, receiver names are not checked)")
        List<String> receivers;

        @Option(names = "--no-secrets",
                description = "do not require the receivers' secrets (environment variables, files) to be set, "
                        + "as in CI: each one missing is a warning instead of an error")
        boolean noSecrets;

        @Option(names = "--oncall", paramLabel = "FILE",
                description = "the on-call file (docs/oncall.md) the chat receivers' `mention:` schedules must be in")
        Path oncall;

        @Option(names = "--test", paramLabel = "LABELS",
                description = "also show where an alert with these labels goes, e.g. "
                        + "'{severity=\"page\", node=\"n1\"}' (repeatable)")
        List<String> tests = new ArrayList<>();

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            Set<String> names = receivers == null ? null : Set.copyOf(receivers);
            AlertingLoad load = noSecrets ? AlertingFile.loadWithoutSecrets(file, System::getenv, names)
                    : AlertingFile.load(file, SecretSource.system(), names);
            for (Diagnostic d : load.diagnostics()) {
                err.println(d);
            }
            int mentionErrors = 0;
            if (load.ok() && oncall != null) {
                Roster roster = Loading.roster(oncall, err);
                if (roster == null) {
                    return 1;
                }
                for (ReceiverSpec r : load.receivers()) {
                    List<String> problems = OnCallMentions.problems(roster, r.mentions());
                    problems.forEach(err::println);
                    mentionErrors += problems.size();
                }
                List<String> problems = load.escalationProblems(roster);
                problems.forEach(err::println);
                mentionErrors += problems.size();
            }
            if (!load.ok() || mentionErrors > 0) {
                int errors = load.errors().size() + mentionErrors;
                err.println(errors + (errors == 1 ? " error" : " errors"));
                err.flush();
                return 1;
            }
            RoutingConfig config = load.routing();
            for (ReceiverSpec r : load.receivers()) {
                out.println("receiver " + r.name() + " (" + r.type() + ")");
            }
            printRoute(out, config.root(), "");
            config.owners().forEach((owner, r) -> out.println("owner " + owner + " -> " + r.receiver()));
            config.escalationPolicies().values().forEach(p -> out.println("escalation " + p.name() + ": "
                    + p.steps().size() + (p.steps().size() == 1 ? " step" : " steps") + ", "
                    + p.steps().stream().map(s -> s.targets() + " via " + s.via() + " for " + duration(s.timeout()))
                    .toList()
                    + (p.repeat() == 0 ? "" : ", repeated " + p.repeat() + (p.repeat() == 1 ? " time" : " times"))));
            int failed = 0;
            for (String test : tests) {
                failed += printTest(out, err, config, test);
            }
            int routes = config.root().flatten().size();
            out.println((load.hasReceivers() ? count(load.receivers().size(), "receiver") + ", " : "")
                    + count(routes, "route") + ", " + count(config.owners().size(), "owner") + ", "
                    + count(config.timeIntervals().size(), "time interval") + ", "
                    + count(config.inhibitRules().size(), "inhibit rule") + " OK");
            out.flush();
            err.flush();
            return failed == 0 ? 0 : 1;
        }

        private static void printRoute(PrintWriter out, Route r, String indent) {
            String matchers = r.matchers().stream().map(Object::toString).collect(Collectors.joining(", ", "{", "}"));
            StringBuilder line = new StringBuilder(indent).append(matchers).append(" -> ")
                    .append(r.receiver().equals(Route.NONE) ? "(no receiver)" : r.receiver());
            r.escalation().ifPresent(e -> line.append(" escalation ").append(e));
            if (r.continueMatching()) {
                line.append(" (continue)");
            }
            line.append("  group_by ").append(r.groupBy()).append(" wait ").append(duration(r.groupWait()))
                    .append(" interval ").append(duration(r.groupInterval()))
                    .append(" repeat ").append(duration(r.repeatInterval()));
            if (!r.muteTimeIntervals().isEmpty()) {
                line.append(" muted ").append(names(r.muteTimeIntervals()));
            }
            if (!r.activeTimeIntervals().isEmpty()) {
                line.append(" active ").append(names(r.activeTimeIntervals()));
            }
            out.println(line);
            for (Route child : r.routes()) {
                printRoute(out, child, indent + "  ");
            }
        }

        private static int printTest(PrintWriter out, PrintWriter err, RoutingConfig config, String test) {
            Map<String, String> labels = new LinkedHashMap<>();
            try {
                MatcherParser.parseList(test).forEach(m -> labels.put(m.name(), m.value()));
            } catch (MatcherException e) {
                err.println("--test " + test + ": error: at character " + (e.offset() + 1) + ": " + e.getMessage());
                return 1;
            }
            String where = config.routes(labels).stream().map(r -> r.receiver() + " (" + r.id() + ")")
                    .collect(Collectors.joining(", "));
            out.println("test " + test + " -> " + where);
            return 0;
        }

        private static String names(List<TimeInterval> intervals) {
            return intervals.stream().map(TimeInterval::name).collect(Collectors.joining(",", "[", "]"));
        }

        /** {@code 30s}, {@code 5m}, {@code 4h}, {@code 1d}: the largest unit that divides it. */
        private static String duration(Duration d) {
            long ms = d.toMillis();
            long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
            String[] units = {"d", "h", "m", "s"};
            for (int i = 0; i < sizes.length; i++) {
                if (ms != 0 && ms % sizes[i] == 0) {
                    return ms / sizes[i] + units[i];
                }
            }
            return ms == 0 ? "0s" : ms + "ms";
        }
    }

    private static String count(long n, String word) {
        return n + " " + word + (n == 1 ? "" : "s");
    }
}
