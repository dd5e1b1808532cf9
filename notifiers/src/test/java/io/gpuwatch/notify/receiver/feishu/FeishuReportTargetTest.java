package io.gpuwatch.notify.receiver.feishu;

import io.gpuwatch.notify.receiver.chat.Hostile;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

class FeishuReportTargetTest {
    @Test
    void tenantNamesInReportLinesAreEscapedAsLarkMd() {
        JsonObject card = FeishuReportTarget.build(Hostile.report()).orElseThrow();
        String section = card.getJsonObject("card").getJsonArray("elements").getJsonObject(1)
                .getJsonObject("text").getString("content");
        Hostile.assertNoneOf(section, Hostile.LIVE);
        assertTrue(section.startsWith("**Firing (page)**\ngpu-hot on &#60;at id=all&#62;&#60;/at&#62; &#60;!channel&#62;"),
                section);
    }
}
