package io.gpuwatch.cli;

import io.gpuwatch.rules.Diagnostic;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code gpuwatch rules …}: tools for rule files that need no gateway. */
@Command(name = "rules", mixinStandardHelpOptions = true, description = "Work with rule files without a gateway.",
        subcommands = RulesCommand.Check.class)
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
}
