package io.gpuwatch.notify.receiver.alertmanager;

import io.gpuwatch.notify.config.ConfigProblem;
import io.gpuwatch.notify.config.Parsed;
import io.gpuwatch.notify.receiver.webhook.HttpAuth;
import io.gpuwatch.notify.secret.SecretSource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AlertmanagerConfigTest {
    private static final String PATH = "receivers.team.alertmanager";
    private static final SecretSource ENV = SecretSource.ofEnv(Map.of("AM_PASS", "pw", "AM_TOKEN", "tok"));

    @Test
    void urlAloneGetsEveryDefault() {
        Parsed<AlertmanagerConfig> parsed = AlertmanagerConfig.parse(Map.of("url", "http://am:9093/"), PATH, ENV);
        assertTrue(parsed.ok(), parsed.problems()::toString);
        assertEquals(AlertmanagerConfig.of("http://am:9093"), parsed.value());
    }

    @Test
    void readsCredentialsFromSecrets() {
        assertEquals(new HttpAuth.Basic("gw", "pw"), AlertmanagerConfig.parse(Map.of("url", "http://am:9093",
                "basicAuth", Map.of("username", "gw", "password", Map.of("env", "AM_PASS"))), PATH, ENV).value().auth());
        assertEquals(new HttpAuth.Bearer("tok"), AlertmanagerConfig.parse(Map.of("url", "http://am:9093",
                "bearerToken", Map.of("env", "AM_TOKEN"), "resendIntervalMs", 30_000), PATH, ENV).value().auth());
    }

    @Test
    void everyProblemIsNamedByItsPath() {
        Parsed<AlertmanagerConfig> parsed = AlertmanagerConfig.parse(Map.of("url", "http://am:9093/?x=1",
                "basicAuth", Map.of("username", "gw", "password", "literal-pw"), "resendIntervalMs", 10), PATH, ENV);
        assertFalse(parsed.ok());
        List<String> problems = parsed.problems().stream().map(ConfigProblem::toString).toList();
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(PATH + ".url: must not have a query string")),
                problems::toString);
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(PATH + ".basicAuth.password")), problems::toString);
        assertTrue(problems.contains(PATH + ".resendIntervalMs: must be between 1000 and 86400000, got 10"), problems::toString);
        assertTrue(problems.stream().noneMatch(p -> p.contains("literal-pw")), problems::toString);
    }
}
