package io.gpuwatch.notify.secret;

import io.gpuwatch.notify.config.Fields;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Resolves secrets named in receiver configuration. A secret field is a map with exactly one of
 * {@code env: NAME} (an environment variable) or {@code file: PATH} (a file's content, trailing line break
 * removed); literal secrets are refused so that config files can be shared and committed.
 */
public final class SecretSource {
    private final Function<String, String> env;
    private final Function<Path, String> files;

    /** Reads from the given environment and files; tests pass maps and a fixture directory. */
    public SecretSource(Function<String, String> env, Function<Path, String> files) {
        this.env = env;
        this.files = files;
    }

    /** The process environment and the file system. */
    public static SecretSource system() {
        return new SecretSource(System::getenv, SecretSource::readFile);
    }

    /** Secrets from a fixed map of environment variables only, for tests. */
    public static SecretSource ofEnv(Map<String, String> vars) {
        return new SecretSource(vars::get, p -> null);
    }

    /**
     * The secret in field {@code key} of {@code f}, or null with a problem recorded in {@code f}: missing when
     * required, a literal value, an unset variable or an unreadable or empty file. Problems never echo a value.
     */
    public Secret read(Fields f, String key, boolean required) {
        if (!f.has(key)) {
            if (required) {
                f.problem(key, "is required (as {env: NAME} or {file: PATH})");
            }
            return null;
        }
        Fields ref = f.nested(key);
        if (ref == null) {
            // nested() has already said it wants a map: a literal secret does not belong in a config file
            return null;
        }
        ref.only(Set.of("env", "file"));
        String var = ref.string("env", false);
        String file = ref.string("file", false);
        if ((var == null) == (file == null)) {
            f.problem(key, "needs exactly one of env or file");
            return null;
        }
        if (var != null) {
            String v = env.apply(var);
            if (v == null || v.isBlank()) {
                f.problem(key, "environment variable " + var + " is not set");
                return null;
            }
            return new Secret(v.strip(), "env " + var);
        }
        String v = files.apply(Path.of(file));
        if (v == null || v.isBlank()) {
            f.problem(key, "cannot read a secret from file " + file + " (missing, unreadable or empty)");
            return null;
        }
        return new Secret(v.strip(), "file " + file);
    }

    private static String readFile(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
