package io.gpuwatch.gateway.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Per-node bearer tokens, kept only as SHA-256 hashes. A line of the file is
 * {@code sha256:<hex> <node-pattern>} where the pattern is a node name or a glob with {@code *};
 * {@code #} starts a comment.
 */
public final class TokenFile {
    private final List<Entry> entries;

    /** One accepted token hash and the nodes it may speak for. */
    public record Entry(byte[] hash, String nodePattern, Pattern nodeRegex, int line) {
        /** True when this token may speak for the named node. */
        public boolean allows(String node) {
            return nodeRegex.matcher(node).matches();
        }
    }

    /** A line of the file that could not be read, with its position. */
    public record Problem(String file, int line, String message) {
        @Override
        public String toString() {
            return file + ":" + line + ": error: " + message;
        }
    }

    /** The outcome of reading a token file: the tokens, or every problem found. */
    public record Load(TokenFile tokens, List<Problem> problems) {
        public boolean ok() {
            return problems.isEmpty();
        }
    }

    private TokenFile(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** A token store built in memory, for the embedded demo and tests. */
    public static TokenFile of(List<Entry> entries) {
        return new TokenFile(entries);
    }

    /** An entry accepting {@code token} for nodes matching {@code nodePattern}. */
    public static Entry entry(String token, String nodePattern) {
        return new Entry(TokenDigest.sha256(token), nodePattern, glob(nodePattern), 0);
    }

    /** Reads a token file; any bad line rejects the whole file. */
    public static Load read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return new Load(null, List.of(new Problem(file.toString(), 0, "cannot read token file: " + e.getMessage())));
        }
        return parse(file.toString(), lines);
    }

    /** Parses token-file lines; {@code name} is used in problem positions. */
    public static Load parse(String name, List<String> lines) {
        List<Entry> entries = new ArrayList<>();
        List<Problem> problems = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            int hash = line.indexOf('#');
            if (hash >= 0) {
                line = line.substring(0, hash).strip();
            }
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("\\s+");
            if (parts.length != 2) {
                problems.add(new Problem(name, i + 1, "expected 'sha256:<hex> <node-pattern>', got " + parts.length + " fields"));
                continue;
            }
            String bad = TokenDigest.problem(parts[0]);
            if (bad != null) {
                problems.add(new Problem(name, i + 1, bad));
                continue;
            }
            byte[] digest = TokenDigest.parse(parts[0]);
            if (!parts[1].matches("[A-Za-z0-9._*-]{1,253}")) {
                problems.add(new Problem(name, i + 1, "node pattern may hold letters, digits, '.', '_', '-' and '*': " + parts[1]));
                continue;
            }
            entries.add(new Entry(digest, parts[1], glob(parts[1]), i + 1));
        }
        return problems.isEmpty() ? new Load(new TokenFile(entries), List.of()) : new Load(null, problems);
    }

    /** The entry whose hash matches the presented token, compared in constant time. */
    public Optional<Entry> find(String token) {
        int found = TokenDigest.find(token, entries.stream().map(Entry::hash).toList());
        return found < 0 ? Optional.empty() : Optional.of(entries.get(found));
    }

    public int size() {
        return entries.size();
    }

    /** A fresh random token (32 bytes, URL-safe hex). */
    public static String newToken() {
        return TokenDigest.fresh();
    }

    /** The line to store for a token: {@code sha256:<hex> <pattern>}. */
    public static String line(String token, String nodePattern) {
        return TokenDigest.stored(token) + " " + nodePattern;
    }

    private static Pattern glob(String pattern) {
        StringBuilder re = new StringBuilder();
        String[] parts = pattern.split("\\*", -1);
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                re.append(".*");
            }
            re.append(Pattern.quote(parts[i]));
        }
        return Pattern.compile(re.toString());
    }
}
