package io.gpuwatch.cli;

import io.gpuwatch.gateway.backtest.Backtest;
import io.gpuwatch.gateway.cost.Pricing;
import io.gpuwatch.offline.score.Firings;
import io.gpuwatch.offline.score.Labels;
import io.gpuwatch.offline.score.LabelsFile;
import io.gpuwatch.offline.score.Score;
import io.gpuwatch.offline.score.ScoreReport;
import io.gpuwatch.offline.score.Scorer;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.source.Diagnostic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code gpuwatch rules score --rules DIR [--labels FILE]… TRACE…}: replays labelled traces as {@code rules
 * backtest} does and scores what the rules sent against the labels (docs/alert-quality.md).
 */
@Command(name = "score", mixinStandardHelpOptions = true,
        description = "Replay labelled traces through rules and score the notifications against the labels: recall "
                + "on time (hard / composite), severity match, notification and page precision, pages per paged "
                + "incident, look-alikes paged / notified, detection delay, and per-incident and per-rule tables. "
                + "Several traces are pooled. Each trace's labels are <name>.labels.yaml beside it unless --labels "
                + "names them. Exits 0 whatever the scores; 1 when an input cannot be read.")
final class RulesScore implements Callable<Integer> {
    @Option(names = "--rules", paramLabel = "PATH",
            description = "rule files or directories (default: the example pack)")
    List<Path> rules;

    @Option(names = "--labels", paramLabel = "FILE",
            description = "labels files, each matched to the trace its `trace:` names (one of each: paired)")
    List<Path> labelFiles;

    @Option(names = "--pricing", paramLabel = "FILE",
            description = "card-hour prices for costPerToken, as for gateway --pricing")
    Path pricingFile;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "text (summary and tables) or json (one object)")
    RulesCommand.Format format;

    @Parameters(arity = "1..*", paramLabel = "TRACE", description = "recorded traces (JSON lines or binary, plain or .gz)")
    List<Path> traces;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        RuleSet set = Loading.rules(rules, err);
        Pricing pricing = Loading.pricing(pricingFile, err);
        List<Labels> given = new ArrayList<>();
        boolean ok = set != null && pricing != null;
        for (Path f : labelFiles == null ? List.<Path>of() : labelFiles) {
            Labels l = load(f, err);
            ok &= l != null;
            given.add(l);
        }
        List<Labels> labels = new ArrayList<>();
        for (Path trace : traces) {
            Labels l = labelsOf(trace, given, err);
            ok &= l != null;
            labels.add(l);
        }
        if (!ok) {
            err.flush();
            return 1;
        }
        List<Scorer.Trace> scored = new ArrayList<>();
        for (int i = 0; i < traces.size(); i++) {
            Path trace = traces.get(i);
            Firings firings = new Firings(set);
            try (TraceLines lines = new TraceLines(trace, err::println)) {
                Backtest.run(set, pricing, lines, firings, (frames, virtualMs) -> { });
                if (lines.badLines() > 0) {
                    err.println(trace + ": warning: " + lines.badLines() + " line"
                            + (lines.badLines() == 1 ? "" : "s") + " skipped");
                }
                if (lines.failure() != null) {
                    err.println(lines.failure());
                    err.flush();
                    return 1;
                }
            } catch (NoSuchFileException e) {
                err.println(trace + ": error: cannot read: no such file");
                err.flush();
                return 1;
            } catch (IOException e) {
                err.println(trace + ": error: cannot read: " + e.getMessage());
                err.flush();
                return 1;
            }
            scored.add(new Scorer.Trace(trace.getFileName().toString(), labels.get(i).items(), firings.fired()));
        }
        Score score = Scorer.score(scored);
        out.print(format == RulesCommand.Format.JSON ? ScoreReport.json(score) + "\n" : ScoreReport.text(score));
        out.flush();
        err.flush();
        return 0;
    }

    private static Labels load(Path file, PrintWriter err) {
        LabelsFile.Load load = LabelsFile.read(file);
        for (Diagnostic d : load.diagnostics()) {
            err.println(d);
        }
        return load.labels();
    }

    /** The given labels that name this trace (the only ones, for a single trace), else those beside it. */
    private Labels labelsOf(Path trace, List<Labels> given, PrintWriter err) {
        String name = trace.getFileName().toString();
        if (labelFiles != null && !labelFiles.isEmpty()) {
            if (given.size() == 1 && traces.size() == 1) {
                return given.get(0);
            }
            List<Labels> named = given.stream().filter(l -> l != null && name.equals(l.trace())).toList();
            if (named.size() == 1) {
                return named.get(0);
            }
            if (given.stream().allMatch(l -> l != null)) {
                err.println(trace + ": error: " + (named.isEmpty() ? "no" : named.size())
                        + " of the --labels files name this trace in `trace:`");
            }
            return null;
        }
        Path beside = trace.resolveSibling(Labels.besideTrace(name));
        return load(beside, err);
    }
}
