package io.gpuwatch.gateway.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Bearer tokens of the HTTP API, kept only as SHA-256 hashes, each with a role and the name the audit log
 * records. A line of the file is {@code sha256:<hex> <role> <name>}; {@code #} starts a comment. Probe tokens
 * live in a file of their own ({@link TokenFile}), so a token handed to every node cannot silence an alert.
 */
public final class ApiTokens {
    /** What a token name may hold: it shows in the audit log and in logs. */
    public static final String NAME_PATTERN = "[A-Za-z0-9._@-]{1,64}";

    private final List<Entry> entries;

    /** One accepted token hash, its role and its name. */
    public record Entry(byte[] hash, Role role, String name, int line) {
    }

    /** The outcome of reading a token file: the tokens, or every problem found. */
    public record Load(ApiTokens tokens, List<TokenFile.Problem> problems) {
        public boolean ok() {
            return problems.isEmpty();
        }
    }

    private ApiTokens(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** No API tokens: the API is open, which a gateway allows on a loopback address only. */
    public static ApiTokens none() {
        return new ApiTokens(List.of());
    }

    /** Tokens built in memory, for tests and the embedded demo. */
    public static ApiTokens of(List<Entry> entries) {
        return new ApiTokens(entries);
    }

    /** An entry accepting {@code token} as {@code name} with {@code role}. */
    public static Entry entry(String token, Role role, String name) {
        return new Entry(TokenDigest.sha256(token), role, name, 0);
    }

    /** Reads an API token file; any bad line rejects the whole file. */
    public static Load read(Path file) {
        try {
            return parse(file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Load(null, List.of(new TokenFile.Problem(file.toString(), 0,
                    "cannot read API token file: " + e.getMessage())));
        }
    }

    /** Parses API token lines; {@code name} is used in problem positions. */
    public static Load parse(String file, List<String> lines) {
        List<Entry> entries = new ArrayList<>();
        List<TokenFile.Problem> problems = new ArrayList<>();
        Map<String, Integer> names = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            line = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("\\s+");
            int at = i + 1;
            if (parts.length != 3) {
                problems.add(new TokenFile.Problem(file, at, "expected 'sha256:<hex> <" + Role.keys()
                        + "> <name>', got " + parts.length + " fields"));
                continue;
            }
            String bad = TokenDigest.problem(parts[0]);
            Optional<Role> role = Role.of(parts[1]);
            if (bad != null) {
                problems.add(new TokenFile.Problem(file, at, bad));
            } else if (role.isEmpty()) {
                problems.add(new TokenFile.Problem(file, at, "role must be one of " + Role.keys() + ", got " + parts[1]));
            } else if (!parts[2].matches(NAME_PATTERN)) {
                problems.add(new TokenFile.Problem(file, at, "name may hold 1 to 64 letters, digits, '.', '_', '@' and '-': "
                        + parts[2]));
            } else if (names.containsKey(parts[2])) {
                problems.add(new TokenFile.Problem(file, at, "name " + parts[2] + " is already used on line "
                        + names.get(parts[2]) + "; the audit log must tell tokens apart"));
            } else {
                names.put(parts[2], at);
                entries.add(new Entry(TokenDigest.parse(parts[0]), role.get(), parts[2], at));
            }
        }
        return problems.isEmpty() ? new Load(new ApiTokens(entries), List.of()) : new Load(null, problems);
    }

    /** The entry whose hash matches the presented token, compared in constant time. */
    public Optional<Entry> find(String token) {
        int found = TokenDigest.find(token, entries.stream().map(Entry::hash).toList());
        return found < 0 ? Optional.empty() : Optional.of(entries.get(found));
    }

    /** The token called {@code name}, if any. */
    public Optional<Entry> named(String name) {
        return entries.stream().filter(e -> e.name().equals(name)).findFirst();
    }

    /** True when there are no tokens, so the API is open. */
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    public int size() {
        return entries.size();
    }

    /** The line to store for a token: {@code sha256:<hex> <role> <name>}. */
    public static String line(String token, Role role, String name) {
        return TokenDigest.stored(token) + " " + role.key() + " " + name;
    }
}
