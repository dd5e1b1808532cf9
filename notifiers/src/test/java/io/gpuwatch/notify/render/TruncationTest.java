package io.gpuwatch.notify.render;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TruncationTest {
    private static final List<String> TEN = IntStream.rangeClosed(1, 10).mapToObj(i -> "alert number " + i).toList();

    @Test
    void keepsEverythingThatFits() {
        assertEquals(String.join("\n", TEN), Truncation.join(TEN, "\n", Limit.chars(1000)));
    }

    @Test
    void dropsWholeEntriesBehindACountOfTheRest() {
        String out = Truncation.join(TEN, "\n", Limit.chars(52));
        assertEquals("alert number 1\nalert number 2\nalert number 3\n+7 more", out);
        assertTrue(out.length() <= 52);
    }

    @Test
    void cutsTheFirstEntryWhenNothingWholeFits() {
        List<String> huge = List.of("x".repeat(100), "second");
        String out = Truncation.join(huge, "\n", Limit.chars(30));
        assertEquals(30, out.length());
        assertTrue(out.endsWith("…\n+1 more"), out);
    }

    @Test
    void countsUtf8BytesWithoutSplittingCharacters() {
        // 3 bytes per character: a byte limit must stop at a character boundary.
        String cjk = "显卡温度过高".repeat(10);
        Limit limit = Limit.utf8Bytes(31);
        String out = limit.cut(cjk);
        assertTrue(out.getBytes(StandardCharsets.UTF_8).length <= 31, out);
        assertEquals("显卡温度过高显卡温…", out);
        List<String> entries = List.of(cjk, cjk, cjk);
        String joined = Truncation.join(entries, "\n\n", Limit.utf8Bytes(400));
        assertTrue(joined.getBytes(StandardCharsets.UTF_8).length <= 400);
        assertTrue(joined.endsWith("\n\n+1 more"), joined);
    }

    @Test
    void fitFindsTheLargestRenderingThatPasses() {
        Optional<String> out = Truncation.fit(TEN, entries -> "[" + String.join(",", entries) + "]",
                s -> s.length() <= 70);
        assertEquals(Optional.of("[alert number 1,alert number 2,alert number 3,alert number 4,+6 more]"), out);
        assertEquals(Optional.empty(), Truncation.fit(TEN, entries -> "[" + String.join(",", entries) + "]",
                s -> s.length() < 5));
        assertEquals(List.of("+10 more"), Truncation.keep(TEN, 0));
    }

    @Test
    void lineFlattensBreaksAndCuts() {
        assertEquals("GPU hot on node-01", Limit.chars(150).line("GPU hot\non   node-01\n"));
        assertEquals("abcd…", Limit.chars(5).line("abcdefgh"));
    }
}
