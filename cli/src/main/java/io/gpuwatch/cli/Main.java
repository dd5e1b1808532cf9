package io.gpuwatch.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.Arrays;

/** The {@code gpuwatch} command line: gateway, probe, demo, rules, trace and token tools. */
@Command(name = "gpuwatch", mixinStandardHelpOptions = true, version = "gpuwatch 0.1.0",
        description = "Alerting for GPU fleets: node probes, a windowing gateway, composite rules, deduplicated pages.",
        subcommands = {GatewayCommand.class, ProbeCommand.class, DemoCommand.class, RulesCommand.class,
                ConfigCommand.class, OnCallCommand.class, BenchCommand.class, TokenCommand.class, SchedCommand.class,
                ReportCommand.class, TraceCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        Logs.configure();
        CommandLine alone = args.length == 0 ? null : switch (args[0]) {
            case "probe" -> probeCommandLine();
            case "rules" -> rulesCommandLine();
            default -> null;
        };
        System.exit(alone != null ? alone.execute(Arrays.copyOfRange(args, 1, args.length))
                : commandLine().execute(args));
    }

    /**
     * {@code gpuwatch probe} alone: the probe runs on every GPU node, and building the whole command line would
     * load every other command's classes (the gateway's among them) into its JVM.
     */
    static CommandLine probeCommandLine() {
        return new CommandLine(new ProbeCommand()).setCommandName("gpuwatch probe")
                .setCaseInsensitiveEnumValuesAllowed(true);
    }

    /**
     * {@code gpuwatch rules} alone: rule checks and tests run often and briefly, and building every other command
     * by reflection took a third of a rule check.
     */
    static CommandLine rulesCommandLine() {
        return new CommandLine(new RulesCommand()).setCommandName("gpuwatch rules")
                .setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** The configured command line, also used by tests. */
    public static CommandLine commandLine() {
        return new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
