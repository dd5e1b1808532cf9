package io.gpuwatch.gateway.exposition;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The text format's escaping, headers and numbers, as Prometheus's parser reads them. */
class TextFormatTest {
    @Test
    void labelValuesEscapeBackslashQuoteAndLineFeedAndEmptyOnesAreLeftOut() {
        assertEquals("task=\"a\\\"b\\\\c\\nd\",owner=\"ü\"",
                TextFormat.labels("task", "a\"b\\c\nd", "business", "", "owner", "ü", "gpu", null));
        assertEquals("", TextFormat.labels("task", null));
        assertThrows(IllegalArgumentException.class, () -> TextFormat.labels("task"));
    }

    @Test
    void helpEscapesBackslashAndLineFeedButNotQuotes() {
        StringBuilder b = new StringBuilder();
        new TextFormat(b).family("x_total", "counter", "a \"b\" c\\d\ne");
        assertEquals("# HELP x_total a \"b\" c\\\\d\\ne\n# TYPE x_total counter\n", b.toString());
    }

    @Test
    void wholeNumbersHaveNoFractionAndSpecialValuesArePrometheusSpelling() {
        StringBuilder b = new StringBuilder();
        TextFormat.number(b, 42.0);
        b.append(' ');
        TextFormat.number(b, 0.62);
        b.append(' ');
        TextFormat.number(b, Double.NaN);
        b.append(' ');
        TextFormat.number(b, Double.POSITIVE_INFINITY);
        b.append(' ');
        TextFormat.number(b, Double.NEGATIVE_INFINITY);
        b.append(' ');
        TextFormat.number(b, 1e20);
        b.append(' ');
        TextFormat.number(b, -3);
        assertEquals("42 0.62 NaN +Inf -Inf 1.0E20 -3", b.toString());
    }

    @Test
    void aLabelThatVariesWithinAFamilyComesFirst() {
        StringBuilder b = new StringBuilder();
        new TextFormat(b).sample("x_total", "code", "79", "gpu=\"0\"", 2).sample("y", "", 1).sample("z", "a=\"b\"", 3);
        assertEquals("x_total{code=\"79\",gpu=\"0\"} 2\ny 1\nz{a=\"b\"} 3\n", b.toString());
    }

    @Test
    void chunksAreUtf8AsJavaWritesItAndALineLongerThanAChunkFits() {
        String mixed = "task=\"ü € 😀 \ud800 end\"";
        byte[] to = new byte[mixed.length() * 3];
        int n = Encoding.utf8(mixed, to);
        assertEquals(new String(mixed.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8),
                new String(to, 0, n, StandardCharsets.UTF_8));
        assertEquals(mixed.getBytes(StandardCharsets.UTF_8).length, n);
        String longLabel = "é".repeat(3 * TextFormat.CHUNK_CHARS);
        Encoding e = Encoding.write(false, 0, text -> text.sample("a", "x", longLabel, "", 1).sample("b", 2));
        assertEquals("a{x=\"" + longLabel + "\"} 1\nb 2\n", new String(e.body(), StandardCharsets.UTF_8));
    }

    @Test
    void gzipIsUsedOnlyWhenTheScraperAcceptsIt() {
        assertTrue(Encoding.accepts("gzip"));
        assertTrue(Encoding.accepts("identity, GZIP;q=0.5"));
        assertFalse(Encoding.accepts("gzip;q=0"));
        assertFalse(Encoding.accepts("gzip; q=0.000"));
        assertFalse(Encoding.accepts("deflate, br"));
        assertFalse(Encoding.accepts(null));
        Encoding z = Encoding.of("a 1\n".repeat(1000), true);
        assertTrue(z.gzip());
        assertTrue(z.body().length < 200, "repetitive text compresses: " + z.body().length);
        assertEquals(0x1f, z.body()[0] & 0xff);
        assertEquals(4000, Encoding.of("a 1\n".repeat(1000), false).body().length);
    }
}
