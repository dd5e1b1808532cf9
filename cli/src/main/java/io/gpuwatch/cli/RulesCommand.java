package io.gpuwatch.cli;

import io.gpuwatch.gateway.backtest.Backtest;
import io.gpuwatch.gateway.backtest.JsonLines;
import io.gpuwatch.gateway.backtest.TextReport;
import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.ruletest.RuleTestReport;
import io.gpuwatch.gateway.ruletest.RuleTests;
import io.gpuwatch.gateway.ruletest.TestResult;
import io.gpuwatch.rules.Diagnostic;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/** {@code gpuwatch rules …}: tools for rule files that need no gateway. */
@Command(name = "rules", mixinStandardHelpOptions = true, description = "Work with rule files without a gateway.",
        subcommands = {RulesCommand.Check.class, RulesCommand.TestFiles.class, RulesCommand.BacktestTrace.class,
                RulesScore.class})
final class RulesCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code gpuwatch rules check FILES…}: parse, compile and lint; exit 1 on any error. */
    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Parse, compile and lint rule files (or directories of them). "
                    + "Prints GCC-style file:line:col diagnostics; exits 1 when there is an error.")
    static final class Check implements Callable<Integer> {
        @Parameters(arity = "1..*", paramLabel = "FILE", description = "rule files or directories")
        List<Path> files;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            RuleLoad load = RuleSet.load(files);
            for (Diagnostic d : load.diagnostics()) {
                err.println(d);
            }
            if (!load.ok()) {
                long errors = load.diagnostics().stream().filter(d -> d.level() == Diagnostic.Level.ERROR).count();
                err.println(errors + (errors == 1 ? " error" : " errors"));
                err.flush();
                return 1;
            }
            List<Rule> rules = load.ruleSet().rules();
            for (Rule r : rules) {
                out.printf("%-32s %-6s %-8s %-12s %s:%d%n", r.name(), r.scope().name().toLowerCase(),
                        r.severity().name().toLowerCase(), r.layer().name().toLowerCase(), r.file(), r.line());
            }
            out.println(rules.size() + " rules OK");
            out.flush();
            return 0;
        }
    }

    /** {@code gpuwatch rules test FILES…}: run rule unit tests; exit 1 when any fails. */
    @Command(name = "test", mixinStandardHelpOptions = true,
            description = "Run rule test files (or every *.yml/*.yaml under directories): input series, events and "
                    + "the alerts expected at given times. Prints PASS or FAIL per test with a diff; exits 1 when "
                    + "any test fails or a file is broken. Format: docs/rules-testing.md.")
    static final class TestFiles implements Callable<Integer> {
        @Parameters(arity = "1..*", paramLabel = "FILE", description = "test files or directories")
        List<Path> files;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            int passed = 0;
            int failed = 0;
            int broken = 0;
            for (Path file : testFiles(err)) {
                RuleTestReport report = RuleTests.run(file);
                for (Diagnostic d : report.diagnostics()) {
                    err.println(d);
                }
                err.flush();
                if (report.diagnostics().stream().anyMatch(d -> d.level() == Diagnostic.Level.ERROR)) {
                    broken++;
                    continue;
                }
                out.println(file);
                for (TestResult t : report.tests()) {
                    out.println((t.passed() ? "  PASS " : "  FAIL ") + t.name());
                    for (String f : t.failures()) {
                        out.println(f.indent(4).stripTrailing());
                    }
                    if (t.passed()) {
                        passed++;
                    } else {
                        failed++;
                    }
                }
            }
            out.println(count(passed + failed, "test") + ", " + passed + " passed, " + failed + " failed"
                    + (broken > 0 ? ", " + count(broken, "broken file") : ""));
            out.flush();
            return failed == 0 && broken == 0 ? 0 : 1;
        }

        /** The files as given, and the *.yml/*.yaml files under directories in path order. */
        private List<Path> testFiles(PrintWriter err) {
            List<Path> out = new ArrayList<>();
            for (Path p : files) {
                if (!Files.isDirectory(p)) {
                    out.add(p);
                    continue;
                }
                try (Stream<Path> walk = Files.walk(p)) {
                    walk.filter(f -> Files.isRegularFile(f) && isYaml(f)).sorted().forEach(out::add);
                } catch (IOException | UncheckedIOException e) {
                    err.println(p + ": error: cannot list directory: " + e.getMessage());
                }
            }
            return out;
        }

        private static boolean isYaml(Path f) {
            String name = f.getFileName().toString();
            return !name.startsWith(".") && (name.endsWith(".yml") || name.endsWith(".yaml"));
        }
    }

    /** Output forms of {@code rules backtest}. */
    enum Format { TEXT, JSON }

    /** {@code gpuwatch rules backtest --rules DIR --trace FILE}: what the rules would have sent for a trace. */
    @Command(name = "backtest", mixinStandardHelpOptions = true,
            description = "Replay a recorded trace (frames as JSON lines, plain or .gz) through rules at full speed "
                    + "and print every alert that would have fired, when, for how long and how many notifications "
                    + "it would have sent. --format json writes one line per notification.")
    static final class BacktestTrace implements Callable<Integer> {
        private static final int BAR = 30;

        @Option(names = "--rules", paramLabel = "PATH",
                description = "rule files or directories (default: the example pack)")
        List<Path> rules;

        @Option(names = "--trace", required = true, paramLabel = "FILE", description = "the trace to replay")
        Path trace;

        @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
                description = "text (alerts and a table per rule) or json (one object per notification)")
        Format format;

        @Option(names = "--pricing", paramLabel = "FILE",
                description = "card-hour prices for costPerToken, as for gateway --pricing")
        Path pricingFile;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            RuleSet set = Loading.rules(rules, err);
            Pricing pricing = Loading.pricing(pricingFile, err);
            if (set == null || pricing == null) {
                return 1;
            }
            boolean bar = System.console() != null;
            long started = System.nanoTime();
            Backtest.Result result;
            String failure;
            long bad;
            try (TraceLines lines = new TraceLines(trace, problem -> {
                if (bar) {
                    err.print("\r\033[K");
                }
                err.println(problem);
            })) {
                result = Backtest.run(set, pricing, lines, s -> {
                    if (format == Format.JSON) {
                        out.println(JsonLines.line(s));
                    }
                }, (frames, virtualMs) -> {
                    if (bar) {
                        progress(err, lines.bytesRead(), lines.size(), frames, virtualMs);
                    }
                });
                failure = lines.failure();
                bad = lines.badLines();
            } catch (NoSuchFileException e) {
                err.println(trace + ": error: cannot read: no such file");
                return 1;
            } catch (IOException e) {
                err.println(trace + ": error: cannot read: " + e.getMessage());
                return 1;
            }
            if (bar) {
                err.print("\r\033[K");
            }
            if (format == Format.TEXT) {
                out.print(TextReport.render(result));
            }
            out.flush();
            for (Diagnostic d : result.runtimeErrors()) {
                err.println(d);
            }
            if (bad > 0) {
                err.println(trace + ": warning: " + count(bad, "line") + " skipped");
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            err.println(String.format(Locale.ROOT, "replayed %,d card readings in %.2f s",
                    result.stats().cardReadings(), seconds));
            if (failure != null) {
                err.println(failure);
            }
            err.flush();
            return failure == null ? 0 : 1;
        }

        private static void progress(PrintWriter err, long read, long size, long frames, long virtualMs) {
            double share = size == 0 ? 1 : Math.min(1, (double) read / size);
            int filled = (int) Math.round(share * BAR);
            err.print(String.format(Locale.ROOT, "\r[%s%s] %3d%%  %,d frames  %s", "#".repeat(filled),
                    ".".repeat(BAR - filled), Math.round(share * 100), frames,
                    virtualMs == Long.MIN_VALUE ? "" : Instant.ofEpochMilli(virtualMs)));
            err.flush();
        }
    }

    private static String count(long n, String word) {
        return n + " " + word + (n == 1 ? "" : "s");
    }
}
