package io.gpuwatch.gateway.auth;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TokenFileTest {
    @Test
    void aStoredHashAcceptsItsTokenForMatchingNodesOnly() {
        String token = TokenFile.newToken();
        TokenFile.Load load = TokenFile.parse("tokens", List.of("# probes of rack 12", TokenFile.line(token, "gpu-r12-*"), ""));
        assertTrue(load.ok(), load.problems().toString());
        TokenFile.Entry entry = load.tokens().find(token).orElseThrow();
        assertTrue(entry.allows("gpu-r12-07"));
        assertFalse(entry.allows("gpu-r13-07"));
        assertFalse(entry.allows("xgpu-r12-07"), "a pattern matches the whole name");
        assertTrue(load.tokens().find("another-token").isEmpty());
        assertTrue(load.tokens().find("").isEmpty());
        assertTrue(load.tokens().find(null).isEmpty());
    }

    @Test
    void theFileNeverHoldsATokenInClear() {
        String token = "abc";
        String line = TokenFile.line(token, "*");
        assertFalse(line.contains(token + " "), line);
        assertTrue(line.startsWith("sha256:"), line);
    }

    @Test
    void badLinesAreReportedWithTheirLineAndTheWholeFileIsRefused() {
        TokenFile.Load load = TokenFile.parse("/etc/gpuwatch/tokens", List.of(
                "sha256:" + "0".repeat(64) + " gpu-*",
                "plain-token gpu-1",
                "sha256:" + "z".repeat(64) + " gpu-2",
                "sha256:" + "0".repeat(64),
                "sha256:" + "0".repeat(64) + " gpu/3"));
        assertFalse(load.ok());
        assertEquals(List.of(
                "/etc/gpuwatch/tokens:2: error: token must be stored as sha256:<64 hex digits>, never in clear",
                "/etc/gpuwatch/tokens:3: error: not a hex digest: " + "z".repeat(64),
                "/etc/gpuwatch/tokens:4: error: expected 'sha256:<hex> <node-pattern>', got 1 fields",
                "/etc/gpuwatch/tokens:5: error: node pattern may hold letters, digits, '.', '_', '-' and '*': gpu/3"),
                load.problems().stream().map(Object::toString).toList());
    }
}
