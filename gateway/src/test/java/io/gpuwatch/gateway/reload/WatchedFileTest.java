package io.gpuwatch.gateway.reload;

import io.gpuwatch.gateway.auth.ApiTokens;
import io.gpuwatch.gateway.auth.Role;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A token file rotated while the gateway runs: a new token is taken in, a broken edit keeps the old ones. */
class WatchedFileTest {
    @TempDir
    Path dir;

    private static final WatchedFile.Reader<ApiTokens> READER = (f, problems) -> {
        ApiTokens.Load load = ApiTokens.read(f);
        load.problems().forEach(p -> problems.accept(p.toString()));
        return load.tokens();
    };

    @Test
    void aChangedFileIsTakenInAndABrokenOneKeepsWhatIsInForce() throws Exception {
        Path file = dir.resolve("api-tokens");
        Files.writeString(file, ApiTokens.line("old", Role.ADMIN, "ana") + "\n");
        List<String> problems = new ArrayList<>();
        WatchedFile<ApiTokens> watched = WatchedFile.read(file, READER, problems::add);
        List<ApiTokens> seen = new ArrayList<>();
        watched.onChange(seen::add);
        assertTrue(watched.get().find("old").isPresent());
        assertFalse(watched.check(), "nothing changed");

        Files.writeString(file, ApiTokens.line("old", Role.ADMIN, "ana") + "\n"
                + ApiTokens.line("new", Role.ADMIN, "ana-2") + "\n");
        assertTrue(watched.check());
        assertTrue(watched.get().find("new").isPresent());
        assertEquals(List.of(watched.get()), seen);

        Files.writeString(file, "new-in-clear admin ana\n");
        assertFalse(watched.check());
        assertTrue(watched.get().find("old").isPresent(), "a broken file keeps the tokens in force");
        assertEquals(1, seen.size());
        assertTrue(problems.isEmpty(), problems.toString());

        Files.writeString(file, "broken\n");
        assertNull(WatchedFile.read(file, READER, problems::add));
        assertEquals(1, problems.size(), problems.toString());
    }
}
