package io.gpuwatch.cli;

import io.gpuwatch.gateway.auth.TokenFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code gateway --alerting} and {@code demo --alerting} refuse a broken file before starting anything. */
class AlertingOptionTest extends InProcessCommandTest {

    private static Path broken(Path dir) throws Exception {
        Path file = dir.resolve("alerting.yml");
        Files.writeString(file, """
                receivers:
                  - name: chat
                    type: slack
                    url: {env: GPUWATCH_TEST_UNSET_VARIABLE}
                route:
                  receiver: chat
                """);
        return file;
    }

    @Test
    void aGatewayWithABrokenAlertingFileSaysWhereAndExitsOne(@TempDir Path dir) throws Exception {
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, TokenFile.line(TokenFile.newToken(), "*") + "\n");
        Path file = broken(dir);
        assertEquals(1, run("gateway", "--tokens", tokens.toString(), "--rules", "../examples/rules",
                "--listen", "127.0.0.1:0", "--alerting", file.toString()));
        assertEquals(file + ":4:10: error: receivers.chat.url: environment variable GPUWATCH_TEST_UNSET_VARIABLE "
                + "is not set\n1 error in " + file + "\n", err.toString());
    }

    @Test
    void theDemoRefusesABrokenAlertingFileToo(@TempDir Path dir) throws Exception {
        Path file = broken(dir);
        assertEquals(1, run("demo", "--rules", "../examples/rules", "--scenario", "../examples/scenarios/demo.yaml",
                "--alerting", file.toString()));
        assertTrue(err.toString().startsWith(file + ":4:10: error: receivers.chat.url: "), err.toString());
    }
}
