package io.gpuwatch.cli;

import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CommandLineTest extends InProcessCommandTest {

    @Test
    void everySubcommandExplainsItself() {
        for (String[] cmd : new String[][]{{"gateway"}, {"probe"}, {"demo"}, {"rules", "check"}, {"token", "new"}}) {
            out.getBuffer().setLength(0);
            String[] args = java.util.Arrays.copyOf(cmd, cmd.length + 1);
            args[cmd.length] = "--help";
            assertEquals(0, run(args), String.join(" ", cmd));
            assertTrue(out.toString().startsWith("Usage: gpuwatch " + String.join(" ", cmd)), out.toString());
        }
    }

    @Test
    void theRulesCommandLineBuiltAloneReadsAsTheWholeOnes() {
        picocli.CommandLine whole = Main.commandLine().getSubcommands().get("rules");
        picocli.CommandLine alone = Main.rulesCommandLine();
        assertEquals(whole.getUsageMessage(), alone.getUsageMessage());
        assertEquals(whole.getSubcommands().keySet(), alone.getSubcommands().keySet());
        for (String sub : whole.getSubcommands().keySet()) {
            assertEquals(whole.getSubcommands().get(sub).getUsageMessage(),
                    alone.getSubcommands().get(sub).getUsageMessage(), sub);
        }
    }

    @Test
    void rulesCheckPassesTheExamplePack() {
        assertEquals(0, run("rules", "check", "../examples/rules"), err.toString());
        assertTrue(out.toString().contains("xid-fallen-off-bus"), out.toString());
        assertTrue(out.toString().strip().endsWith("rules OK"), out.toString());
    }

    @Test
    void rulesCheckPrintsGccStylePositionsAndFails(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.yml");
        Files.writeString(bad, """
                group: g
                layer: device
                scope: card
                rules:
                  - name: hot
                    severity: page
                    when: tempC > 90 && Runtime.getRuntime()
                """);
        assertEquals(1, run("rules", "check", bad.toString()));
        String text = err.toString();
        assertTrue(text.contains(bad + ":7:25: error: `Runtime` is not allowed"), text);
        assertTrue(text.strip().endsWith("1 error"), text);
    }

    @Test
    void tokenNewWithARoleMakesAnApiTokenAndRefusesATakenName(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("api-tokens");
        assertEquals(0, run("token", "new", "--role", "operator", "--name", "ana", "--file", file.toString()));
        String token = out.toString().strip();
        assertTrue(!Files.readString(file).contains(token), "the token itself is never written");
        ApiTokens.Entry entry = ApiTokens.read(file).tokens().find(token).orElseThrow();
        assertEquals("ana", entry.name());
        assertEquals(Role.OPERATOR, entry.role());
        assertEquals(1, run("token", "new", "--role", "admin", "--name", "ana", "--file", file.toString()));
        assertTrue(err.toString().contains("already holds a token named ana"), err.toString());
        assertEquals(2, run("token", "new", "--role", "root", "--name", "bo", "--file", file.toString()));
        assertTrue(err.toString().contains("--role: expected viewer|operator|admin, got root"), err.toString());
        assertEquals(2, run("token", "new", "--role", "admin", "--node", "gpu-*", "--file", file.toString()));
        assertEquals(1, ApiTokens.read(file).tokens().size());
    }

    @Test
    void aGatewayWithAnOpenApiRefusesAPublicAddress(@TempDir Path dir) throws Exception {
        Path tokens = dir.resolve("tokens");
        assertEquals(0, run("token", "new", "--node", "gpu-*", "--file", tokens.toString()));
        assertEquals(2, run("gateway", "--tokens", tokens.toString(), "--rules", "../examples/rules", "--listen",
                "0.0.0.0:0"));
        assertTrue(err.toString().contains("refusing to listen on 0.0.0.0 with no API tokens"), err.toString());
        Path api = dir.resolve("api-tokens");
        Files.writeString(api, "sha256:" + "a".repeat(64) + " owner ana\n");
        assertEquals(2, run("gateway", "--tokens", tokens.toString(), "--api-tokens", api.toString(), "--rules",
                "../examples/rules", "--listen", "0.0.0.0:0"));
        assertTrue(err.toString().contains(api + ":1: error: role must be one of viewer|operator|admin, got owner"),
                err.toString());
        assertEquals(2, run("gateway", "--tokens", tokens.toString(), "--rules", "../examples/rules", "--listen",
                "127.0.0.1:0", "--tls-key", dir.resolve("key.pem").toString()));
        assertTrue(err.toString().contains("--tls-key: give the certificate too, with --tls-cert"), err.toString());
    }

    @Test
    void tokenNewStoresOnlyTheHash(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tokens");
        assertEquals(0, run("token", "new", "--node", "gpu-*", "--file", file.toString()));
        String token = out.toString().strip();
        String stored = Files.readString(file);
        assertTrue(stored.startsWith("sha256:"), stored);
        assertTrue(stored.strip().endsWith(" gpu-*"), stored);
        assertTrue(!stored.contains(token), "the token itself is never written");
        assertTrue(io.gpuwatch.gateway.auth.TokenFile.read(file).tokens().find(token).orElseThrow().allows("gpu-7"));
    }

    @Test
    void aGatewayWithABrokenTokenFileRefusesToStartAndSaysWhere(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tokens");
        Files.writeString(file, "hunter2 gpu-1\n");
        assertEquals(1, run("gateway", "--tokens", file.toString(), "--rules", "../examples/rules", "--listen", "127.0.0.1:0"));
        assertTrue(err.toString().contains(file + ":1: error: token must be stored as sha256"), err.toString());
    }

    @Test
    void aGatewayWithABrokenPricingFileRefusesToStartAndSaysWhere(@TempDir Path dir) throws Exception {
        Path tokens = dir.resolve("tokens");
        assertEquals(0, run("token", "new", "--node", "gpu-*", "--file", tokens.toString()));
        Path prices = dir.resolve("pricing.yml");
        Files.writeString(prices, "currency: USD\ncard_hour:\n  default: -3\n");
        assertEquals(1, run("gateway", "--tokens", tokens.toString(), "--rules", "../examples/rules", "--listen",
                "127.0.0.1:0", "--pricing", prices.toString()));
        assertTrue(err.toString().contains(prices + ":3:12: card_hour.default must be a price"), err.toString());
    }

    @Test
    void aBacktestPricesCardsFromItsPricingFile(@TempDir Path dir) throws Exception {
        Path prices = dir.resolve("pricing.yml");
        Files.writeString(prices, "card_hour:\n  models: {match: H100}\n");
        Path trace = dir.resolve("t.jsonl");
        Files.writeString(trace, "");
        assertEquals(1, run("rules", "backtest", "--trace", trace.toString(), "--pricing", prices.toString()));
        assertTrue(err.toString().contains(prices + ":2:11: card_hour.models must be a list"), err.toString());
    }
}
