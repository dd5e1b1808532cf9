package io.gpuwatch.cli;

import io.gpuwatch.gateway.Gateway;
import io.gpuwatch.gateway.GatewayConfig;
import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import io.gpuwatch.gateway.http.ApiAccess;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway in this JVM whose API admits the {@link #VIEWER} token, on a clock the test steps, and the CLI run
 * against it with what it prints kept: the setting of the commands that read a gateway's reports.
 */
final class ViewerGateway {
    static final String VIEWER = "viewer-token";

    /** The gateway's clock, in epoch milliseconds. */
    final AtomicLong now;
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();
    private Gateway gateway;

    ViewerGateway(long t0) {
        this.now = new AtomicLong(t0);
    }

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    /** Deploys a gateway with {@code config} and the rule file {@code yaml}, {@code before} applied first. */
    Gateway start(Vertx vertx, GatewayConfig config, String file, String yaml, Consumer<Gateway> before)
            throws Exception {
        RuleLoad rules = RuleSet.parse(file, yaml);
        assertTrue(rules.ok(), rules.diagnostics().toString());
        gateway = new Gateway(config, rules.ruleSet(), () -> null, List.of(), () -> Instant.ofEpochMilli(now.get()))
                .access(new ApiAccess(() -> ApiTokens.of(List.of(ApiTokens.entry(VIEWER, Role.VIEWER, "cli"))),
                        Set.of(), true, 100, 100));
        before.accept(gateway);
        await(vertx.deployVerticle(gateway));
        return gateway;
    }

    /** Runs {@code gpuwatch args}, printing to {@link #out} and {@link #err}; the exit code. */
    int run(String... args) {
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    /** The gateway's base URL. */
    String url() {
        return "http://127.0.0.1:" + gateway.port();
    }
}
