package io.gpuwatch.gateway.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;

/** How every token file keeps a token: {@code sha256:<64 hex digits>}, never the token itself. */
final class TokenDigest {
    static final String PREFIX = "sha256:";
    private static final HexFormat HEX = HexFormat.of();

    private TokenDigest() {
    }

    static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** The stored form of {@code token}. */
    static String stored(String token) {
        return PREFIX + HEX.formatHex(sha256(token));
    }

    /** What is wrong with a stored field, or null when it is {@code sha256:<64 hex digits>}. */
    static String problem(String field) {
        if (!field.startsWith(PREFIX) || field.length() != PREFIX.length() + 64) {
            return "token must be stored as sha256:<64 hex digits>, never in clear";
        }
        String hex = field.substring(PREFIX.length());
        return hex.chars().allMatch(c -> Character.digit(c, 16) >= 0) ? null : "not a hex digest: " + hex;
    }

    /** The digest of a stored field that has no {@link #problem}. */
    static byte[] parse(String field) {
        return HEX.parseHex(field.substring(PREFIX.length()));
    }

    /**
     * The index of the hash among {@code hashes} that {@code token} has, or -1. Every hash is compared, with
     * {@link MessageDigest#isEqual}, so the time taken tells neither whether nor which one matched.
     */
    static int find(String token, List<byte[]> hashes) {
        if (token == null || token.isEmpty()) {
            return -1;
        }
        byte[] presented = sha256(token);
        int found = -1;
        for (int i = 0; i < hashes.size(); i++) {
            if (MessageDigest.isEqual(hashes.get(i), presented) && found < 0) {
                found = i;
            }
        }
        return found;
    }

    /** A fresh random token: 32 bytes from a {@link SecureRandom}, as hex. */
    static String fresh() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return HEX.formatHex(b);
    }
}
