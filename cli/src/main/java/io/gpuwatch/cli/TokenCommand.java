package io.gpuwatch.cli;

import io.gpuwatch.gateway.auth.TokenFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;

/** {@code gpuwatch token new}: makes a probe token and stores only its hash in the gateway's token file. */
@Command(name = "token", mixinStandardHelpOptions = true, description = "Manage probe bearer tokens.",
        subcommands = TokenCommand.New.class)
final class TokenCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Prints a new token once and appends its hash to the token file. */
    @Command(name = "new", mixinStandardHelpOptions = true,
            description = "Create a token for nodes matching a pattern; prints the token once, stores its SHA-256.")
    static final class New implements Callable<Integer> {
        @Option(names = "--node", required = true, description = "node name or glob, e.g. gpu-a17 or 'gpu-*'")
        String node;

        @Option(names = "--file", required = true, description = "the gateway's token file (appended to)")
        Path file;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            if (!node.matches("[A-Za-z0-9._*-]{1,253}")) {
                spec.commandLine().getErr().println("--node may hold letters, digits, '.', '_', '-' and '*'");
                return 2;
            }
            String token = TokenFile.newToken();
            Files.writeString(file, TokenFile.line(token, node) + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            spec.commandLine().getOut().println(token);
            spec.commandLine().getErr().println("stored the hash for '" + node + "' in " + file
                    + "; give the token above to the probe (it is not stored anywhere in clear)");
            return 0;
        }
    }
}
