package io.gpuwatch.notify.receiver.opsgenie;

import io.gpuwatch.notify.config.ConfigProblem;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.secret.SecretSource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OpsgenieConfigTest {
    private static final String PATH = "receivers.oncall.opsgenie";
    private static final SecretSource ENV = SecretSource.ofEnv(Map.of("OG_KEY", "eb243592-secret"));

    @Test
    void readsEuHostRespondersTagsAndPriorities() {
        Parsed<OpsgenieConfig> parsed = OpsgenieConfig.parse(Map.of("apiKey", Map.of("env", "OG_KEY"), "region", "eu",
                "responders", List.of(Map.of("type", "team", "name", "gpu-oncall")), "tags", List.of("gpu"),
                "priorities", Map.of("ticket", "P4")), PATH, ENV);
        assertTrue(parsed.ok(), parsed.problems()::toString);
        OpsgenieConfig c = parsed.value();
        assertEquals(OpsgenieConfig.EU_URL, c.url());
        assertEquals(List.of(new OpsgenieConfig.Responder("team", "gpu-oncall")), c.responders());
        assertEquals(List.of("gpu"), c.tags());
        assertEquals("P4", c.priorityFor("ticket"));
        assertEquals("P1", c.priorityFor("PAGE"));
        assertEquals("P3", c.priorityFor("whatever"));
        assertFalse(c.toString().contains("eb243592"), c.toString());
    }

    @Test
    void defaultsToTheUsHost() {
        OpsgenieConfig c = OpsgenieConfig.parse(Map.of("apiKey", Map.of("env", "OG_KEY")), PATH, ENV).value();
        assertEquals(OpsgenieConfig.US_URL, c.url());
        assertEquals(OpsgenieConfig.DEFAULT_MESSAGE, c.message());
    }

    @Test
    void everyProblemIsNamedByItsPath() {
        Parsed<OpsgenieConfig> parsed = OpsgenieConfig.parse(Map.of("region", "apac",
                "responders", List.of(Map.of("type", "squad", "name", "x"), Map.of("type", "team", "nmae", "y")),
                "tags", List.of("t".repeat(51)), "priorities", Map.of("page", "P0"), "message", "{{label.x}}"), PATH, ENV);
        assertFalse(parsed.ok());
        List<String> problems = parsed.problems().stream().map(ConfigProblem::toString).toList();
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(PATH + ".apiKey: is required")), problems::toString);
        assertTrue(problems.contains(PATH + ".region: must be us or eu, got apac"), problems::toString);
        assertTrue(problems.contains(PATH + ".responders[0].type: must be team, user, escalation or schedule"),
                problems::toString);
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(PATH + ".responders[1].name: is required")),
                problems::toString);
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(PATH + ".responders[1].nmae: unknown field")),
                problems::toString);
        assertTrue(problems.contains(PATH + ".tags[0]: must be at most 50 characters"), problems::toString);
        assertTrue(problems.contains(PATH + ".priorities.page: must be one of P1, P2, P3, P4, P5, got P0"),
                problems::toString);
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(PATH + ".message: unknown placeholder 'label.x'")),
                problems::toString);
    }
}
