package io.gpuwatch.gateway.silence;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The silence that marking an alert resolved from chat makes: it mutes the alert until the alert's condition
 * clears, when the gateway ends it, so the next episode pages again. The fingerprint it waits for is written in
 * the silence's comment, which the store keeps and the cluster shares with the silence, so a restart or another
 * gateway still knows which silence to end.
 */
public final class Resolution {
    private static final String LEAD = "marked resolved";
    private static final Pattern UNTIL = Pattern.compile("; ends when alert ([0-9a-f]{1,64}) resolves$");

    private Resolution() {
    }

    /** The comment of the silence that marks alert {@code fingerprint} resolved from {@code where} (e.g. Slack). */
    public static String comment(String fingerprint, String where) {
        return LEAD + " in " + where + "; ends when alert " + fingerprint + " resolves";
    }

    /** The alert whose resolution ends {@code silence}, when it is such a silence. */
    public static Optional<String> awaited(Silence silence) {
        if (!silence.comment().startsWith(LEAD)) {
            return Optional.empty();
        }
        Matcher m = UNTIL.matcher(silence.comment());
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
