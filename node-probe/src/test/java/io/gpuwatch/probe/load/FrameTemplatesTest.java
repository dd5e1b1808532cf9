package io.gpuwatch.probe.load;

import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FrameTemplatesTest {
    private final LoadPlan plan = new LoadPlan(3, 8, 1000, 60_000, "bench-", List.of(), 10, 100, 0);
    private final FrameTemplates templates = new FrameTemplates(plan, 42);
    private final FrameCodec codec = new FrameCodec();
    private final StringBuilder sb = new StringBuilder();

    private <T> T decode(String text, Class<T> type) {
        Decoded d = codec.decode(text);
        return assertInstanceOf(type, assertInstanceOf(Decoded.Ok.class, d, () -> d + " in " + text).frame());
    }

    @Test
    void helloNamesTheNodeAndItsCards() {
        NodeTexts n = templates.node(2, "boot-1");
        Hello hello = decode(n.hello(), Hello.class);
        assertEquals("bench-00002", hello.node());
        assertEquals("boot-1", hello.bootId());
        assertEquals(8, hello.cards().size());
        assertEquals(n.uuids(), hello.cards().stream().map(c -> c.uuid()).toList());
    }

    @Test
    void aSampleCarriesEveryCardMetricOfEveryCardAndValidatesAsProtocolV1() {
        NodeTexts n = templates.node(1, "boot-1");
        Sample s = decode(templates.sample(sb, n, 7, 1_764_700_000_000L), Sample.class);
        assertEquals(7, s.seq());
        assertEquals(1_764_700_000_000L, s.ts());
        assertEquals(n.uuids(), s.cards().stream().map(CardReading::uuid).toList());
        for (CardReading c : s.cards()) {
            for (Metric m : Metric.values()) {
                if (m.source() == Metric.Source.CARD) {
                    assertTrue(c.values().has(m), c.uuid() + " lacks " + m.field());
                }
            }
            assertEquals(1, c.processes().size(), "one process per card, so the card counts as allocated");
        }
        assertEquals(8 * FrameTemplates.CARD.length, templates.valuesPerSample());
    }

    @Test
    void readingsMoveFromOneSampleToTheNextAndCountersDoNotGoBack() {
        NodeTexts n = templates.node(0, "boot-1");
        Sample a = decode(templates.sample(sb, n, 1, 1000), Sample.class);
        Sample b = decode(templates.sample(sb, n, 2, 2000), Sample.class);
        assertNotEquals(a.cards().get(0).values().get(Metric.POWER_W), b.cards().get(0).values().get(Metric.POWER_W));
        assertTrue(b.cards().get(0).values().get(Metric.ENERGY_J) > a.cards().get(0).values().get(Metric.ENERGY_J));
    }

    @Test
    void appAndXidFramesValidate() {
        NodeTexts n = templates.node(0, "boot-1");
        App app = decode(templates.app(sb, n, 3, 1000), App.class);
        assertEquals("bench-00000-job", app.task());
        for (Metric m : FrameTemplates.APP) {
            assertTrue(app.values().has(m), "app frame lacks " + m.field());
        }
        Event xid = decode(templates.xid(sb, 4, 1000, n.uuids().get(5)), Event.class);
        assertEquals("xid", xid.kind());
        assertEquals(79, xid.xid());
        assertEquals(n.uuids().get(5), xid.uuid());
    }

    @Test
    void uuidsAreUniqueAndDifferFromRunToRun() {
        Set<String> seen = new HashSet<>();
        for (int node = 0; node < 200; node++) {
            for (int card = 0; card < 8; card++) {
                assertTrue(seen.add(templates.uuid(node, card)));
            }
        }
        assertNotEquals(templates.uuid(0, 0), new FrameTemplates(plan, 43).uuid(0, 0));
    }
}
