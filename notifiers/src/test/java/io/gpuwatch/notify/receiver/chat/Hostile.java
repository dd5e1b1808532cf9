package io.gpuwatch.notify.receiver.chat;

import io.gpuwatch.notify.render.Report;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Checks on what a receiver sent for {@link Alerts#HOSTILE}: nothing live got through, and its text is kept. */
public final class Hostile {
    /** The raw sequences a tenant-named node or rule in a report line could use to mention, link or restyle. */
    public static final String[] LIVE = {"<at id=all>", "<!channel>", "<@zhangsan>", "[click](", "*bold*"};

    private Hostile() {
    }

    /** A report whose line names a node the way a hostile tenant could. */
    public static Report report() {
        return new Report("gpuwatch digest", "2026-12-03 08:00 – 09:00 UTC",
                List.of(new Report.Section("Firing (page)", List.of(
                        "gpu-hot on <at id=all></at> <!channel> <@zhangsan> [click](https://evil.example) *bold*"),
                        "none")), "firing ▁▃█", null);
    }

    /** None of {@code live} (raw mention, link or tag sequences) appears in {@code sent}. */
    public static void assertNoneOf(String sent, String... live) {
        for (String s : live) {
            assertFalse(sent.contains(s), "sent text holds the live sequence " + s + ": "
                    + sent.substring(0, Math.min(400, sent.length())));
        }
    }

    /**
     * The one long alert kept its text, cut with an ellipsis: {@code escapedHead} (the start of the summary as
     * the target escapes it) and a run of the Chinese text past it, then {@code …}, and, when {@code others} is
     * above zero, a {@code +N more} line for the rest.
     */
    public static void assertKeptText(String sent, String escapedHead, int others) {
        assertTrue(sent.contains(escapedHead), "the summary's start, escaped, is kept: "
                + sent.substring(0, Math.min(600, sent.length())));
        assertTrue(sent.contains(Alerts.HOSTILE_TAIL_TEXT.repeat(20)), "the summary's text is kept, not only a count");
        assertTrue(sent.contains("…"), "the cut is marked with an ellipsis");
        if (others > 0) {
            assertTrue(sent.contains("+" + others + " more"), "the other alerts are counted");
        } else {
            assertFalse(sent.contains(" more"), "nothing else to count");
        }
    }
}
