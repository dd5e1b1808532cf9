package io.gpuwatch.gateway.auth;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The API token file: roles, names, hashes only, and every bad line named. */
class ApiTokensTest {
    @TempDir
    Path dir;

    @Test
    void aStoredLineFindsItsTokenAndNothingElse() throws Exception {
        Path file = dir.resolve("api-tokens");
        String ops = TokenFile.newToken();
        String admin = TokenFile.newToken();
        Files.writeString(file, "# people and tools\n" + ApiTokens.line(ops, Role.OPERATOR, "ana") + "\n"
                + ApiTokens.line(admin, Role.ADMIN, "ci-bot") + "  # the deploy job\n");
        assertFalse(Files.readString(file).contains(ops), "the token is never stored in clear");
        ApiTokens.Load load = ApiTokens.read(file);
        assertTrue(load.ok(), load.problems().toString());
        ApiTokens tokens = load.tokens();
        assertEquals("ana", tokens.find(ops).orElseThrow().name());
        assertEquals(Role.OPERATOR, tokens.find(ops).orElseThrow().role());
        assertEquals(Role.ADMIN, tokens.find(admin).orElseThrow().role());
        assertTrue(tokens.find(ops.substring(1)).isEmpty());
        assertTrue(tokens.find(ops + " ").isEmpty());
        assertTrue(tokens.find("").isEmpty());
        assertTrue(tokens.find(null).isEmpty());
    }

    @Test
    void everyBadLineIsNamedWithItsPlace() {
        String hash = "sha256:" + "a".repeat(64);
        ApiTokens.Load load = ApiTokens.parse("api.tokens", List.of(
                hash + " root ana",
                "secret-in-clear admin ana",
                hash + " admin ana smith",
                hash + " admin ana",
                hash + " viewer ana",
                hash + " viewer a/b"));
        assertFalse(load.ok());
        List<String> problems = load.problems().stream().map(TokenFile.Problem::toString).toList();
        assertEquals(List.of(
                "api.tokens:1: error: role must be one of viewer|operator|admin, got root",
                "api.tokens:2: error: token must be stored as sha256:<64 hex digits>, never in clear",
                "api.tokens:3: error: expected 'sha256:<hex> <viewer|operator|admin> <name>', got 4 fields",
                "api.tokens:5: error: name ana is already used on line 4; the audit log must tell tokens apart",
                "api.tokens:6: error: name may hold 1 to 64 letters, digits, '.', '_', '@' and '-': a/b"), problems);
    }

    @Test
    void eachRoleMayDoWhatTheOnesBelowMay() {
        assertTrue(Role.ADMIN.covers(Role.OPERATOR));
        assertTrue(Role.OPERATOR.covers(Role.VIEWER));
        assertTrue(Role.VIEWER.covers(Role.VIEWER));
        assertFalse(Role.VIEWER.covers(Role.OPERATOR));
        assertFalse(Role.OPERATOR.covers(Role.ADMIN));
    }
}
