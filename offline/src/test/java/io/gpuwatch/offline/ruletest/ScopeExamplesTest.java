package io.gpuwatch.offline.ruletest;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The example pack's tests of task, business and queue rules pass through the gateway's replay. */
class ScopeExamplesTest {
    @Test
    void examplePackTestsOfTheWiderScopesPass() {
        List<String> failed = new ArrayList<>();
        for (String name : List.of("tokens-collapse-while-busy", "preemption-storm", "queue-wait-high",
                "idle-card-hours")) {
            RuleTestReport r = RuleTests.run(Path.of("../examples/rules/tests/" + name + ".test.yml"));
            if (!r.passed()) {
                failed.add(r.toString());
            }
        }
        assertEquals(List.of(), failed);
    }
}
