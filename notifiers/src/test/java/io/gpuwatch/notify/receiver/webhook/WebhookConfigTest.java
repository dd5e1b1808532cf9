package io.gpuwatch.notify.receiver.webhook;

import io.gpuwatch.notify.config.ConfigProblem;
import io.gpuwatch.notify.config.Parsed;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WebhookConfigTest {
    private static final String PATH = "receivers.ops.webhook";
    private static final String URL = "https://hooks.example.com:8443/services/T1/B2/SECRETPATH?key=SECRETQUERY";

    private static List<String> problems(Map<String, ?> fields) {
        Parsed<WebhookConfig> parsed = WebhookConfig.parse(fields, PATH);
        assertFalse(parsed.ok());
        assertNull(parsed.value());
        return parsed.problems().stream().map(ConfigProblem::toString).toList();
    }

    @Test
    void urlAloneGetsEveryDefault() {
        Parsed<WebhookConfig> parsed = WebhookConfig.parse(Map.of("url", URL), PATH);
        assertTrue(parsed.ok(), parsed.problems()::toString);
        assertEquals(new WebhookConfig(URL, HttpAuth.NONE, 5000, 6, 200, 10_000, 0), parsed.value());
        assertEquals(WebhookConfig.of(URL), parsed.value());
    }

    @Test
    void readsEveryField() {
        Parsed<WebhookConfig> parsed = WebhookConfig.parse(Map.of("url", URL, "bearerToken", "tok",
                "timeoutMs", 2500, "maxAttempts", 3L, "initialBackoffMs", 50, "maxBackoffMs", 800.0, "maxAlerts", 20), PATH);
        assertTrue(parsed.ok(), parsed.problems()::toString);
        assertEquals(new WebhookConfig(URL, new HttpAuth.Bearer("tok"), 2500, 3, 50, 800, 20), parsed.value());
    }

    @Test
    void readsBasicAuth() {
        Parsed<WebhookConfig> parsed = WebhookConfig.parse(
                Map.of("url", URL, "basicAuth", Map.of("username", "gw", "password", "pw")), PATH);
        assertEquals(new HttpAuth.Basic("gw", "pw"), parsed.value().auth());
    }

    @Test
    void missingUrlIsNamedByPath() {
        assertEquals(List.of("receivers.ops.webhook.url: is required"), problems(Map.of()));
    }

    @Test
    void everyBadFieldIsReportedAtOnce() {
        List<String> problems = problems(Map.of("url", URL, "timeoutMs", "5s", "maxAttempts", 0,
                "initialBackoffMs", 1.5, "maxAlerts", true, "timout", 5));
        assertEquals(5, problems.size(), problems::toString);
        assertTrue(problems.contains("receivers.ops.webhook.timeoutMs: expected a whole number, got text"), problems::toString);
        assertTrue(problems.contains("receivers.ops.webhook.maxAttempts: must be at least 1, got 0"), problems::toString);
        assertTrue(problems.contains("receivers.ops.webhook.initialBackoffMs: expected a whole number, got 1.5"),
                problems::toString);
        assertTrue(problems.contains("receivers.ops.webhook.maxAlerts: expected a whole number, got true/false"),
                problems::toString);
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("receivers.ops.webhook.timout: unknown field")),
                problems::toString);
    }

    @Test
    void backoffCapBelowStartIsRejected() {
        assertEquals(List.of("receivers.ops.webhook.maxBackoffMs: must not be below initialBackoffMs (500), got 100"),
                problems(Map.of("url", URL, "initialBackoffMs", 500, "maxBackoffMs", 100)));
    }

    @Test
    void unsupportedSchemeIsRejectedWithoutEchoingTheSecret() {
        List<String> problems = problems(Map.of("url", "ftp://files.example.com/SECRETPATH"));
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).startsWith("receivers.ops.webhook.url: must start with http:// or https://"));
        assertTrue(problems.get(0).contains("ftp://files.example.com/…"), problems.get(0));
        assertFalse(problems.get(0).contains("SECRETPATH"));
    }

    @Test
    void authProblems() {
        assertEquals(List.of("receivers.ops.webhook.basicAuth: give either bearerToken or basicAuth, not both"),
                problems(Map.of("url", URL, "bearerToken", "t", "basicAuth", Map.of("username", "u", "password", "p"))));
        assertEquals(List.of("receivers.ops.webhook.basicAuth.password: is required"),
                problems(Map.of("url", URL, "basicAuth", Map.of("username", "u"))));
        List<String> newline = problems(Map.of("url", URL, "bearerToken", "tok-from-file\n"));
        assertEquals(1, newline.size());
        assertTrue(newline.get(0).startsWith("receivers.ops.webhook.bearerToken: bearer token must not contain control"),
                newline::toString);
        assertFalse(newline.get(0).contains("tok-from-file"));
    }

    @Test
    void toStringHidesPathQueryAndCredentials() {
        String shown = new WebhookConfig(URL, new HttpAuth.Basic("gw", "hunter2"), 5000, 6, 200, 10_000, 0).toString();
        assertTrue(shown.contains("https://hooks.example.com:8443/…"), shown);
        assertFalse(shown.contains("SECRET"), shown);
        assertFalse(shown.contains("hunter2"), shown);
        assertFalse(new HttpAuth.Bearer("tok123").toString().contains("tok123"));
    }

    @Test
    void constructorRejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new WebhookConfig("not a url", HttpAuth.NONE, 5000, 6, 200, 10_000, 0));
        assertThrows(IllegalArgumentException.class, () -> new WebhookConfig(URL, HttpAuth.NONE, 0, 6, 200, 10_000, 0));
        assertThrows(IllegalArgumentException.class, () -> new WebhookConfig(URL, HttpAuth.NONE, 5000, 0, 200, 10_000, 0));
        assertThrows(IllegalArgumentException.class, () -> new WebhookConfig(URL, HttpAuth.NONE, 5000, 6, 200, 10_000, -1));
    }
}
