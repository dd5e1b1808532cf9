package io.gpuwatch.cli;

import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.auth.TokenFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code gpuwatch token new}: makes a probe token (--node) or an API token (--role, --name) and stores only its
 * hash, in the gateway's --tokens or --api-tokens file.
 */
@Command(name = "token", mixinStandardHelpOptions = true, description = "Manage probe and API bearer tokens.",
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
            description = "Create a probe token for nodes matching a pattern (--node; the gateway's --tokens file) or "
                    + "an API token with a role (--role, --name; its --api-tokens file); prints the token once, "
                    + "stores its SHA-256.")
    static final class New implements Callable<Integer> {
        @Option(names = "--node", description = "probe token: node name or glob, e.g. gpu-a17 or 'gpu-*'")
        String node;

        @Option(names = "--role", paramLabel = "viewer|operator|admin",
                description = "API token: viewer reads; operator also acknowledges and silences; admin also "
                        + "reloads and reads the audit log")
        String role;

        @Option(names = "--name", description = "API token: who holds it, as the audit log records it, e.g. ana or ci-bot")
        String name;

        @Option(names = "--file", required = true, description = "the gateway's token file (appended to)")
        Path file;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            PrintWriter err = spec.commandLine().getErr();
            String token = TokenFile.newToken();
            String line;
            String holder;
            if (node != null) {
                if (role != null || name != null) {
                    err.println("--node makes a probe token, --role and --name an API token: give one or the other");
                    return 2;
                }
                if (!node.matches("[A-Za-z0-9._*-]{1,253}")) {
                    err.println("--node may hold letters, digits, '.', '_', '-' and '*'");
                    return 2;
                }
                line = TokenFile.line(token, node);
                holder = "'" + node + "'";
            } else {
                Optional<Role> r = role == null ? Optional.empty() : Role.of(role);
                if (r.isEmpty() || name == null) {
                    err.println(role != null && r.isEmpty() ? "--role: expected " + Role.keys() + ", got " + role
                            : "give --node PATTERN for a probe token, or --role " + Role.keys()
                            + " and --name NAME for an API token");
                    return 2;
                }
                if (!name.matches(ApiTokens.NAME_PATTERN)) {
                    err.println("--name may hold 1 to 64 letters, digits, '.', '_', '@' and '-', got " + name);
                    return 2;
                }
                if (Files.exists(file)) {
                    ApiTokens.Load load = ApiTokens.read(file);
                    if (!load.ok()) {
                        load.problems().forEach(err::println);
                        return 1;
                    }
                    if (load.tokens().named(name).isPresent()) {
                        err.println(file + ": already holds a token named " + name + "; the audit log must tell "
                                + "tokens apart, so pick another name");
                        return 1;
                    }
                }
                line = ApiTokens.line(token, r.get(), name);
                holder = name + " (" + r.get().key() + ")";
            }
            Files.writeString(file, line + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            spec.commandLine().getOut().println(token);
            err.println("stored the hash for " + holder + " in " + file
                    + "; hand over the token above (it is not stored anywhere in clear)");
            return 0;
        }
    }
}
