package io.gpuwatch.notify.receiver.webhook;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * How a webhook authenticates: not at all, a bearer token, or basic auth. The caller reads the secret from
 * an environment variable or a file; these records only carry it, and their {@code toString} hides it.
 */
public sealed interface HttpAuth permits HttpAuth.None, HttpAuth.Bearer, HttpAuth.Basic {
    /** No authentication. */
    HttpAuth NONE = new None();

    /** The {@code Authorization} header value, empty when none is sent. */
    Optional<String> authorization();

    /** The secret strings, to scrub from anything printed. */
    List<String> secrets();

    /** No {@code Authorization} header. */
    record None() implements HttpAuth {
        @Override
        public Optional<String> authorization() {
            return Optional.empty();
        }

        @Override
        public List<String> secrets() {
            return List.of();
        }
    }

    /** {@code Authorization: Bearer <token>}. */
    record Bearer(String token) implements HttpAuth {
        public Bearer {
            headerSafe("bearer token", token);
        }

        @Override
        public Optional<String> authorization() {
            return Optional.of("Bearer " + token);
        }

        @Override
        public List<String> secrets() {
            return List.of(token);
        }

        @Override
        public String toString() {
            return "Bearer[token=…]";
        }
    }

    /** {@code Authorization: Basic base64(username:password)}. */
    record Basic(String username, String password) implements HttpAuth {
        public Basic {
            headerSafe("basic auth username", username);
            if (username.indexOf(':') >= 0) {
                throw new IllegalArgumentException("basic auth username must not contain ':'");
            }
            headerSafe("basic auth password", password);
        }

        @Override
        public Optional<String> authorization() {
            return Optional.of("Basic " + Base64.getEncoder()
                    .encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }

        @Override
        public List<String> secrets() {
            return List.of(password, authorization().orElseThrow().substring("Basic ".length()));
        }

        @Override
        public String toString() {
            return "Basic[username=" + username + ", password=…]";
        }
    }

    private static void headerSafe(String what, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        // A line break would let a secret file's trailing garbage inject headers.
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException(what + " must not contain control characters (a stray newline?)");
        }
    }
}
