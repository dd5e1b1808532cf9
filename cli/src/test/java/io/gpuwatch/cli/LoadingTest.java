package io.gpuwatch.cli;

import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleSet;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Offline tools load a pack with its templates left to their first render; a server gets them compiled. */
class LoadingTest {
    private static final List<Path> PACK = List.of(Path.of("../examples/rules"));

    @Test
    void aServerGetsEveryTemplateCompiledAndAToolDoesNot() {
        StringWriter err = new StringWriter();
        RuleSet offline = Loading.rules(PACK, new PrintWriter(err));
        assertNotNull(offline, err::toString);
        assertFalse(offline.rules().stream().allMatch(Rule::renderingPrepared), "a backtest compiles what fires");
        RuleSet served = Loading.rulesToServe(PACK, new PrintWriter(err));
        assertNotNull(served, err::toString);
        assertTrue(served.rules().stream().allMatch(Rule::renderingPrepared), "the gateway's first pages compile nothing");
    }
}
