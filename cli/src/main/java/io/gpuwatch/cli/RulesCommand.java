package io.gpuwatch.cli;

import io.gpuwatch.gateway.backtest.Backtest;
import io.gpuwatch.gateway.backtest.JsonLines;
import io.gpuwatch.gateway.backtest.TextReport;
import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.gateway.replay.Replay;
import io.gpuwatch.offline.ruletest.RuleTestReport;
import io.gpuwatch.offline.ruletest.RuleTests;
import io.gpuwatch.offline.ruletest.TestResult;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.source.Diagnostic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

    /** {@code gpuwatch rules backtest --rules DIR --trace FILE…}: what the rules would have sent for traces. */
    @Command(name = "backtest", mixinStandardHelpOptions = true,
            description = "Replay recorded traces (frames as JSON lines or in the binary form, told apart by their first "
                    + "bytes, plain or .gz) through rules at full speed "
                    + "and print every alert that would have fired, when, for how long and how many notifications "
                    + "it would have sent. --format json writes one line per notification. Several traces are "
                    + "replayed side by side, one per core, and each is reported on its own.")
    static final class BacktestTrace implements Callable<Integer> {
        private static final int BAR = 30;

        @Option(names = "--rules", paramLabel = "PATH",
                description = "rule files or directories (default: the example pack)")
        List<Path> rules;

        @Option(names = "--trace", paramLabel = "FILE", description = "a trace to replay; repeat for several")
        List<Path> traceOptions = new ArrayList<>();

        @Parameters(paramLabel = "TRACE", arity = "0..*", description = "more traces to replay")
        List<Path> traceArgs = new ArrayList<>();

        @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
                description = "text (alerts and a table per rule) or json (one object per notification; with "
                        + "several traces each names its \"trace\")")
        Format format;

        @Option(names = "--pricing", paramLabel = "FILE",
                description = "card-hour prices for costPerToken, as for gateway --pricing")
        Path pricingFile;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        /** One trace's backtest: its result, or {@code error} when it could not be read at all. */
        private record Outcome(Path trace, Backtest.Result result, String failure, long badLines, String error,
                               double seconds) {
        }

        @Override
        public Integer call() throws InterruptedException {
            List<Path> traces = new ArrayList<>(traceOptions);
            traces.addAll(traceArgs);
            if (traces.isEmpty()) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "Missing required trace: give --trace FILE or TRACE…");
            }
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            RuleSet set = Loading.rules(rules, err);
            Pricing pricing = Loading.pricing(pricingFile, err);
            if (set == null || pricing == null) {
                return 1;
            }
            boolean several = traces.size() > 1;
            boolean bar = !several && System.console() != null;
            long started = System.nanoTime();
            List<Outcome> outcomes = new ArrayList<>();
            if (several) {
                // one replay per core: each is single-threaded like the gateway's event loop
                int threads = Math.min(traces.size(), Runtime.getRuntime().availableProcessors());
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                try {
                    List<Future<Outcome>> running = new ArrayList<>();
                    for (int i = 0; i < traces.size(); i++) {
                        // compiled rules hold their evaluation state: each replay gets a rule set of its own
                        RuleSet own = i == 0 ? set : Loading.rules(rules, new PrintWriter(Writer.nullWriter()));
                        if (own == null) {
                            err.println("rules backtest: the rules changed while loading; run again");
                            return 1;
                        }
                        Path trace = traces.get(i);
                        running.add(pool.submit(() -> replay(trace, own, pricing, out, err, false, true)));
                    }
                    for (Future<Outcome> f : running) {
                        outcomes.add(f.get());
                    }
                } catch (ExecutionException e) {
                    throw new IllegalStateException("a backtest failed", e.getCause());
                } finally {
                    pool.shutdownNow();
                }
            } else {
                outcomes.add(replay(traces.get(0), set, pricing, out, err, bar, false));
            }
            int rc = 0;
            long readings = 0;
            for (Outcome o : outcomes) {
                if (o.error() != null) {
                    err.println(o.error());
                    rc = 1;
                    continue;
                }
                if (format == Format.TEXT) {
                    if (several) {
                        out.println("== " + o.trace());
                    }
                    out.print(TextReport.render(o.result()));
                    if (several) {
                        out.println();
                    }
                }
                out.flush();
                for (Diagnostic d : o.result().runtimeErrors()) {
                    err.println(several ? o.trace() + ": " + d : d);
                }
                if (o.badLines() > 0) {
                    err.println(o.trace() + ": warning: " + count(o.badLines(), "line") + " skipped");
                }
                readings += o.result().stats().cardReadings();
                Replay.Stats stats = o.result().stats();
                err.println(String.format(Locale.ROOT, "%sreplayed %,d card readings in %.2f s (%,d of %,d rule "
                        + "evaluations left out: nothing they read had changed, or a window had yet to empty)",
                        several ? o.trace() + ": " : "",
                        stats.cardReadings(), o.seconds(), stats.slept(), stats.ruleEvaluations() + stats.slept()));
                if (o.failure() != null) {
                    err.println(o.failure());
                    rc = 1;
                }
            }
            if (several) {
                err.println(String.format(Locale.ROOT, "replayed %,d card readings of %d traces in %.2f s", readings,
                        traces.size(), (System.nanoTime() - started) / 1e9));
            }
            err.flush();
            return rc;
        }

        /** Replays one trace; notifications (json) and skipped lines are written as they come, under a lock. */
        private Outcome replay(Path trace, RuleSet set, Pricing pricing, PrintWriter out, PrintWriter err,
                               boolean bar, boolean named) {
            long started = System.nanoTime();
            String name = named ? trace.toString() : null;
            try (TraceLines lines = new TraceLines(trace, problem -> {
                synchronized (err) {
                    if (bar) {
                        err.print("\r\033[K");
                    }
                    err.println(problem);
                }
            })) {
                Backtest.Result result = Backtest.run(set, pricing, lines, s -> {
                    if (format == Format.JSON) {
                        String line = JsonLines.line(s, name);
                        synchronized (out) {
                            out.println(line);
                        }
                    }
                }, (frames, virtualMs) -> {
                    if (bar) {
                        progress(err, lines.bytesRead(), lines.size(), frames, virtualMs);
                    }
                });
                if (bar) {
                    err.print("\r\033[K");
                }
                return new Outcome(trace, result, lines.failure(), lines.badLines(), null,
                        (System.nanoTime() - started) / 1e9);
            } catch (NoSuchFileException e) {
                return new Outcome(trace, null, null, 0, trace + ": error: cannot read: no such file", 0);
            } catch (IOException e) {
                return new Outcome(trace, null, null, 0, trace + ": error: cannot read: " + e.getMessage(), 0);
            }
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
