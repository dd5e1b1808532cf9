package io.gpuwatch.notify.secret;

import io.gpuwatch.notify.config.ConfigProblem;
import io.gpuwatch.notify.config.Fields;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SecretSourceTest {
    private static final SecretSource ENV = SecretSource.ofEnv(Map.of("PD_KEY", "r0uting-key\n"));

    @Test
    void aSecretComesFromAnEnvironmentVariableAndNeverPrintsItself() {
        Fields f = new Fields(Map.of("routingKey", Map.of("env", "PD_KEY")), "receivers[0].pagerduty");
        Secret s = ENV.read(f, "routingKey", true);
        assertEquals("r0uting-key", s.reveal());
        assertEquals("<secret from env PD_KEY>", s.toString());
        assertTrue(f.problems().isEmpty());
    }

    @Test
    void aSecretComesFromAFile(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("hook"), "https://hooks.slack.com/services/T/B/X\n");
        Fields f = new Fields(Map.of("url", Map.of("file", file.toString())), "slack");
        Secret s = SecretSource.system().read(f, "url", true);
        assertEquals("https://hooks.slack.com/services/T/B/X", s.reveal());
        assertEquals("file " + file, s.source());
    }

    @Test
    void everyWayOfGettingItWrongIsNamedWithoutEchoingAValue() {
        Fields f = new Fields(Map.of(
                "literal", "xoxb-123-very-secret",
                "unset", Map.of("env", "NOPE"),
                "both", Map.of("env", "PD_KEY", "file", "/x"),
                "typo", Map.of("enV", "PD_KEY"),
                "gone", Map.of("file", "/no/such/file")), "r");
        for (String key : List.of("literal", "unset", "both", "typo", "gone", "missing")) {
            assertNull(SecretSource.system().read(f, key, true), key);
        }
        List<String> problems = f.problems().stream().map(ConfigProblem::toString).toList();
        assertTrue(problems.stream().noneMatch(p -> p.contains("xoxb")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("r.literal")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("NOPE is not set")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("r.both") && p.contains("exactly one")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("r.typo.enV")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("/no/such/file")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("r.missing") && p.contains("required")), problems.toString());
    }

    @Test
    void anOptionalSecretMayBeAbsent() {
        Fields f = new Fields(Map.of(), "dingtalk");
        assertNull(ENV.read(f, "signSecret", false));
        assertFalse(f.problems().stream().findAny().isPresent());
    }
}
