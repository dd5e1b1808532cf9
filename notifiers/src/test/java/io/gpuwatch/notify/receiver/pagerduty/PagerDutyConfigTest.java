package io.gpuwatch.notify.receiver.pagerduty;

import io.gpuwatch.notify.config.ConfigProblem;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.secret.SecretSource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PagerDutyConfigTest {
    private static final String PATH = "receivers.oncall.pagerduty";
    private static final SecretSource ENV = SecretSource.ofEnv(Map.of("PD_KEY", "R0UT1NGK3Y0123456789abcdefABCDEF"));

    private static List<String> problems(Map<String, ?> fields) {
        Parsed<PagerDutyConfig> parsed = PagerDutyConfig.parse(fields, PATH, ENV);
        assertFalse(parsed.ok());
        return parsed.problems().stream().map(ConfigProblem::toString).toList();
    }

    @Test
    void routingKeyAloneGetsTheUsEndpointAndDefaults() {
        Parsed<PagerDutyConfig> parsed = PagerDutyConfig.parse(Map.of("routingKey", Map.of("env", "PD_KEY")), PATH, ENV);
        assertTrue(parsed.ok(), parsed.problems()::toString);
        PagerDutyConfig c = parsed.value();
        assertEquals(PagerDutyConfig.US_URL, c.url());
        assertEquals("R0UT1NGK3Y0123456789abcdefABCDEF", c.routingKey().reveal());
        assertEquals("critical", c.severityFor("page"));
        assertEquals("error", c.severityFor(null));
        assertFalse(c.toString().contains("R0UT1NG"), c.toString());
    }

    @Test
    void readsRegionTemplatesAndSeverityOverrides() {
        PagerDutyConfig c = PagerDutyConfig.parse(Map.of("routingKey", Map.of("env", "PD_KEY"), "region", "eu",
                "summary", "{{labels.alertname}}: {{annotations.summary}}", "severities", Map.of("ticket", "error"),
                "maxAttempts", 3), PATH, ENV).value();
        assertEquals(PagerDutyConfig.EU_URL, c.url());
        assertEquals("{{labels.alertname}}: {{annotations.summary}}", c.summary());
        assertEquals("error", c.severityFor("ticket"));
        assertEquals("info", c.severityFor("notice"));
        assertEquals(3, c.maxAttempts());
    }

    @Test
    void everyProblemIsNamedByItsPath() {
        List<String> problems = problems(Map.of("routingKey", "R0UT1NGK3Y-literal", "region", "mars",
                "summary", "{{labels.alertname} oops {{", "severities", Map.of("page", "sev1"), "timeout", 5));
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(PATH + ".routingKey")), problems::toString);
        assertTrue(problems.contains(PATH + ".region: must be us or eu, got mars"), problems::toString);
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(PATH + ".summary: ")), problems::toString);
        assertTrue(problems.contains(PATH + ".severities.page: must be one of critical, error, warning, info, got sev1"),
                problems::toString);
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(PATH + ".timeout: unknown field")), problems::toString);
        assertTrue(problems.stream().noneMatch(p -> p.contains("R0UT1NGK3Y-literal")), problems::toString);
    }

    @Test
    void unknownPlaceholderIsExplained() {
        List<String> problems = problems(Map.of("routingKey", Map.of("env", "PD_KEY"), "source", "{{host}}"));
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).startsWith(PATH + ".source: unknown placeholder 'host'"), problems::toString);
    }

    @Test
    void regionAndUrlTogetherAreAmbiguous() {
        assertEquals(List.of(PATH + ".url: give either region or url, not both"), problems(Map.of(
                "routingKey", Map.of("env", "PD_KEY"), "region", "eu", "url", "https://pd.example.com/v2/enqueue")));
    }
}
