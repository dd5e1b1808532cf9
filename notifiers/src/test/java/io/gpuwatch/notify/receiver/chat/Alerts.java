package io.gpuwatch.notify.receiver.chat;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Notification.Status;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Notifications the chat receiver tests send: two XID 79 pages, a resolved overheat, and a flood of many. */
public final class Alerts {
    public static final Instant NOW = Instant.parse("2026-12-03T09:05:00Z");

    public static final Notification XID_1 = new Notification("a1b2c3d4e5f60718", Status.FIRING,
            Map.of("alertname", "xid-fallen-off-bus", "severity", "page", "node", "node-01", "uuid", "GPU-1111"),
            Map.of("summary", "GPU-1111 on node-01 fell off the bus (XID 79)"),
            Instant.parse("2026-12-03T09:01:02Z"), null, "http://gw:8080/api/v1/alerts/a1b2c3d4e5f60718");
    public static final Notification XID_2 = new Notification("0f1e2d3c4b5a6978", Status.FIRING,
            Map.of("alertname", "xid-fallen-off-bus", "severity", "page", "node", "node-01", "uuid", "GPU-2222"),
            Map.of("summary", "GPU-2222 on node-01 fell off the bus (XID 79)"),
            Instant.parse("2026-12-03T09:01:02Z"), null, "");
    public static final Notification HOT_RESOLVED = new Notification("7777777777777777", Status.RESOLVED,
            Map.of("alertname", "gpu-hot", "severity", "ticket", "node", "node-02", "uuid", "GPU-3333"),
            Map.of("summary", "GPU-3333 at 91 °C <b>&</b>"),
            Instant.parse("2026-12-03T09:01:02Z"), Instant.parse("2026-12-03T09:03:12Z"), "");

    /** The start of the hostile summary: every kind of mention and markup the chat targets know. */
    public static final String HOSTILE_HEAD = "<at id=all></at> <!channel> <@U024BE7LH> <@zhangsan> "
            + "<font color=\"warning\">red</font> [click](https://evil.example) *bold* _it_ ~gone~ `code` "
            + "[~admin] {color:red}x{color} &amp; &lt; 显卡故障 ";
    /** What is still readable well past the first few hundred characters of the hostile summary. */
    public static final String HOSTILE_TAIL_TEXT = "显卡温度过高";
    /**
     * One alert a tenant could craft through pod labels and annotations: mentions, links, tags and entities in
     * its labels and a 12,000-character summary, mostly Chinese (about 36 KB of UTF-8), longer than any single
     * chat message allows.
     */
    public static final Notification HOSTILE = new Notification("ffffffffffffffff", Status.FIRING,
            Map.of("alertname", "<at id=all></at>[x](https://evil.example)", "severity", "page",
                    "node", "<!channel> <@zhangsan>"),
            Map.of("summary", HOSTILE_HEAD + HOSTILE_TAIL_TEXT.repeat((12_000 - HOSTILE_HEAD.length()) / 6)),
            Instant.parse("2026-12-03T09:01:02Z"), null, "");

    /** A second alert with the hostile labels and a short summary, so a batch of both shares its title. */
    public static final Notification HOSTILE_TWIN = new Notification("fffffffffffffffe", Status.FIRING,
            HOSTILE.labels(), Map.of("summary", "second copy"), Instant.parse("2026-12-03T09:01:02Z"), null, "");

    private Alerts() {
    }

    /** {@code n} firing alerts with long, multi-byte summaries, enough to overflow any chat message limit. */
    public static List<Notification> flood(int n) {
        List<Notification> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Notification(String.format("%016x", i), Status.FIRING,
                    Map.of("alertname", "gpu-hot", "severity", "ticket", "node", "node-" + i, "uuid", "GPU-" + i),
                    Map.of("summary", "显卡温度过高 GPU-" + i + " runs hot: " + "°C ".repeat(60)),
                    Instant.parse("2026-12-03T09:01:02Z"), null, ""));
        }
        return out;
    }
}
