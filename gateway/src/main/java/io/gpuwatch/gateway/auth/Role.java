package io.gpuwatch.gateway.auth;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** What an API token may do; each role may do everything the ones before it may. */
public enum Role {
    /** Reads alerts, silences, rules, groups and metrics. */
    VIEWER,
    /** Also acknowledges alerts and creates, changes and expires silences. */
    OPERATOR,
    /** Also reloads the rules, changes the configuration and reads the audit log. */
    ADMIN;

    /** The name in token files and on the command line. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** True when a token of this role may do what {@code needed} may. */
    public boolean covers(Role needed) {
        return ordinal() >= needed.ordinal();
    }

    /** The role named {@code key}, as {@link #key()} writes it. */
    public static Optional<Role> of(String key) {
        return Arrays.stream(values()).filter(r -> r.key().equals(key)).findFirst();
    }

    /** The role names, for messages: {@code viewer|operator|admin}. */
    public static String keys() {
        return String.join("|", Arrays.stream(values()).map(Role::key).toList());
    }
}
