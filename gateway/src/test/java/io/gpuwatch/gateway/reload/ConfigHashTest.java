package io.gpuwatch.gateway.reload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two gateways with the same files in different places agree; an edit, or text moved between files, shows. */
class ConfigHashTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws Exception {
        Path f = dir.resolve(name);
        Files.createDirectories(f.getParent());
        Files.writeString(f, text);
        return f;
    }

    @Test
    void theSameContentsHashTheSameWhereverTheyLive() throws Exception {
        write("a/rules/one.yml", "group: a\n");
        write("a/rules/two.yaml", "group: b\n");
        write("a/rules/notes.txt", "not a rule file\n");
        Path alertingA = write("a/alerting.yml", "route: {}\n");
        write("b/elsewhere/one.yml", "group: a\n");
        write("b/elsewhere/two.yaml", "group: b\n");
        Path alertingB = write("b/alerting.yml", "route: {}\n");

        String a = ConfigHash.of(List.of(dir.resolve("a/rules"), alertingA));
        assertTrue(a.matches("sha256:[0-9a-f]{64}"), a);
        assertEquals(a, ConfigHash.of(List.of(dir.resolve("b/elsewhere"), alertingB)));

        write("b/elsewhere/two.yaml", "group: c\n");
        assertNotEquals(a, ConfigHash.of(List.of(dir.resolve("b/elsewhere"), alertingB)));
    }

    @Test
    void textMovedFromOneFileToTheNextChangesTheHash() throws Exception {
        Path one = write("x/1.yml", "ab");
        Path two = write("x/2.yml", "c");
        String before = ConfigHash.of(List.of(one, two));
        Files.writeString(one, "a");
        Files.writeString(two, "bc");
        assertNotEquals(before, ConfigHash.of(List.of(one, two)));
    }

    @Test
    void aMissingFileCountsAsItsErrorRatherThanFailing() {
        String missing = ConfigHash.of(List.of(dir.resolve("gone.yml")));
        assertTrue(missing.startsWith("sha256:"), missing);
        assertNotEquals(ConfigHash.of(List.of()), missing);
    }
}
