package io.gpuwatch.notify.receiver.wecom;

import io.gpuwatch.notify.receiver.chat.Hostile;
import io.gpuwatch.notify.render.Report;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WeComReportTargetTest {
    @Test
    void multiByteDigestStaysWithinTheContentLimitWithoutAChart() {
        List<String> lines = IntStream.range(0, 200).mapToObj(i -> "业务-" + i + " 空闲卡时 12.5 h").toList();
        Report report = new Report("gpuwatch 摘要", "2026-12-03 08:00 – 09:00 Asia/Shanghai",
                List.of(new Report.Section("Idle card-hours", lines, "none")), "firing ▁▂█",
                "https://gw.example.com/chart.png");
        String content = WeComReportTarget.build(report).orElseThrow();
        assertTrue(content.getBytes(StandardCharsets.UTF_8).length <= 4096);
        assertTrue(content.startsWith("**gpuwatch 摘要**\n2026-12-03 08:00 – 09:00 Asia/Shanghai\nfiring ▁▂█\n"),
                content);
        assertTrue(content.matches("(?s).*\n> \\+\\d+ more$"), content.substring(content.length() - 40));
        assertFalse(content.contains("chart.png"));
    }

    @Test
    void tenantNamesInReportLinesAreReplacedByLookAlikes() {
        String content = WeComReportTarget.build(Hostile.report()).orElseThrow();
        Hostile.assertNoneOf(content, Hostile.LIVE);
        assertTrue(content.contains("> gpu-hot on ＜at id=all＞＜/at＞ ＜!channel＞ ＜@zhangsan＞ ［click］"), content);
    }
}
