package io.gpuwatch.notify.receiver.jira;

import io.gpuwatch.notify.config.ConfigProblem;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.receiver.webhook.HttpAuth;
import io.gpuwatch.notify.secret.SecretSource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JiraConfigTest {
    private static final String PATH = "receivers.tickets.jira";
    private static final SecretSource ENV = SecretSource.ofEnv(Map.of("JIRA_TOKEN", "ATATT-secret",
            "JIRA_PAT", "dc-pat-secret"));

    private static List<String> problems(Map<String, ?> fields) {
        Parsed<JiraConfig> parsed = JiraConfig.parse(fields, PATH, ENV);
        assertFalse(parsed.ok());
        return parsed.problems().stream().map(ConfigProblem::toString).toList();
    }

    @Test
    void cloudConfigWithDefaults() {
        Parsed<JiraConfig> parsed = JiraConfig.parse(Map.of("url", "https://acme.atlassian.net/", "project", "OPS",
                "email", "ops@example.com", "apiToken", Map.of("env", "JIRA_TOKEN")), PATH, ENV);
        assertTrue(parsed.ok(), parsed.problems()::toString);
        JiraConfig c = parsed.value();
        assertEquals("https://acme.atlassian.net", c.url());
        assertEquals(3, c.apiVersion());
        assertEquals("Task", c.issueType());
        assertEquals("Done", c.resolveTransition());
        assertEquals(new HttpAuth.Basic("ops@example.com", "ATATT-secret"), c.auth());
        assertNull(c.priorityFor("page"));
        assertFalse(c.toString().contains("ATATT-secret"), c.toString());
    }

    @Test
    void dataCenterConfigWithATokenAndOverrides() {
        JiraConfig c = JiraConfig.parse(Map.of("url", "https://jira.internal", "apiVersion", 2, "project", "GPU",
                "issueType", "Incident", "token", Map.of("env", "JIRA_PAT"), "resolveTransition", "Resolve Issue",
                "labels", List.of("gpu", "fleet"), "priorities", Map.of("Page", "Highest")), PATH, ENV).value();
        assertEquals(2, c.apiVersion());
        assertEquals(new HttpAuth.Bearer("dc-pat-secret"), c.auth());
        assertEquals(List.of("gpu", "fleet"), c.labels());
        assertEquals("Highest", c.priorityFor("page"));
        assertEquals("Resolve Issue", c.resolveTransition());
    }

    @Test
    void everyProblemIsNamedByItsPath() {
        List<String> problems = problems(Map.of("url", "ftp://jira", "apiVersion", 4, "labels", List.of("two words"),
                "description", "{{annotation.summary}}"));
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(PATH + ".url: must start with http")), problems::toString);
        assertTrue(problems.contains(PATH + ".apiVersion: must be between 2 and 3, got 4"), problems::toString);
        assertTrue(problems.contains(PATH + ".project: is required"), problems::toString);
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(PATH + ".apiToken: credentials are required")),
                problems::toString);
        assertTrue(problems.contains(PATH + ".labels[0]: a Jira label is 1 to 255 characters without spaces"),
                problems::toString);
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(PATH + ".description: unknown placeholder")),
                problems::toString);
    }

    @Test
    void bothCredentialFormsAreAmbiguous() {
        assertEquals(List.of(PATH + ".token: give either email with apiToken (Jira Cloud) or token (Data Center), not both"),
                problems(Map.of("url", "https://acme.atlassian.net", "project", "OPS", "email", "a@b.c",
                        "apiToken", Map.of("env", "JIRA_TOKEN"), "token", Map.of("env", "JIRA_PAT"))));
    }
}
