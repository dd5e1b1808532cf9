package io.gpuwatch.notify.render;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Notification.Status;
import io.gpuwatch.notify.config.Fields;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TemplateTest {
    static final Notification XID = new Notification("a1b2c3d4e5f60718", Status.FIRING,
            Map.of("alertname", "xid-79", "node", "node-01", "uuid", "GPU-1111"),
            Map.of("summary", "GPU-1111 fell off the bus"), Instant.parse("2026-12-03T09:01:02Z"), null, "");
    static final Notification HOT = new Notification("7777777777777777", Status.RESOLVED,
            Map.of("alertname", "gpu-hot", "node", "node-01"), Map.of(),
            Instant.parse("2026-12-03T09:01:02Z"), Instant.parse("2026-12-03T09:03:12Z"), "");

    @Test
    void fillsAlertSlotsWithFallbacks() {
        Template t = Template.compile("[{{status}}] {{annotations.summary|labels.alertname}} on {{labels.node}}"
                + " ({{annotations.runbook|\"no runbook\"}}) until {{endsAt|\"now\"}}");
        assertEquals("[firing] GPU-1111 fell off the bus on node-01 (no runbook) until now",
                t.render(XID, List.of(XID), Markup.PLAIN));
        assertEquals("[resolved] gpu-hot on node-01 (no runbook) until 2026-12-03T09:03:12Z",
                t.render(HOT, List.of(HOT), Markup.PLAIN));
    }

    @Test
    void groupRenderingUsesSharedValuesAndCounts() {
        Template t = Template.compile("{{status}}: {{count}} alerts ({{firing}} firing, {{resolved}} resolved)"
                + " on {{labels.node}} {{labels.alertname|\"mixed\"}} [{{labels}}]");
        assertEquals("firing: 2 alerts (1 firing, 1 resolved) on node-01 mixed [node=node-01]",
                t.groupText(List.of(XID, HOT)).raw());
        assertEquals("resolved", Template.compile("{{status}}").groupText(List.of(HOT)).raw());
    }

    @Test
    void escapesSlotValuesButNotTheTemplateText() {
        Notification angle = new Notification("f", Status.FIRING, Map.of("alertname", "a<b>&c"), Map.of(),
                Instant.EPOCH, null, "");
        Template t = Template.compile("<b>{{labels.alertname}}</b>");
        assertEquals("<b>a&lt;b&gt;&amp;c</b>", t.render(angle, List.of(angle), Markup.SLACK_MRKDWN));
    }

    @Test
    void badTemplatesSayWhatIsWrong() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Template.compile("{{labelz.node}}"));
        assertTrue(unknown.getMessage().contains("unknown placeholder 'labelz.node'"), unknown.getMessage());
        IllegalArgumentException open = assertThrows(IllegalArgumentException.class, () -> Template.compile("a {{b"));
        assertTrue(open.getMessage().contains("without its closing"), open.getMessage());
    }

    @Test
    void layoutReadsOverridesAndReportsBadTemplatesAtTheirPath() {
        Layout defaults = Layout.of("{{status}}", "{{labels.alertname}}");
        Fields ok = new Fields(Map.of("templates", Map.of("entry", "{{labels.node}}")), "receivers.chat");
        Layout read = Layout.read(ok, "templates", defaults);
        assertSame(defaults.title(), read.title());
        assertEquals("node-01 / node-01", String.join(" / ",
                read.render(List.of(XID, HOT), Markup.PLAIN).shownEntries()));
        assertTrue(ok.problems().isEmpty());

        Fields bad = new Fields(Map.of("templates", Map.of("title", "{{nope}}", "colour", "red")), "receivers.chat");
        assertNull(Layout.read(bad, "templates", defaults));
        assertEquals(List.of("receivers.chat.templates.colour", "receivers.chat.templates.title"),
                bad.problems().stream().map(p -> p.path()).sorted().toList());
    }
}
