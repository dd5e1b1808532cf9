package io.gpuwatch.rules.source;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class DidYouMeanTest {
    @Test
    void theClosestNameWithinATyposDistanceIgnoringCase() {
        assertEquals(" (did you mean `gpuUtil`?)", DidYouMean.hint("gpuutil", List.of("tempC", "gpuUtil")));
        assertEquals("gpuUtil", DidYouMean.closest("gpuUtl", List.of("gpuUtil", "powerW")));
        assertEquals("wei", DidYouMean.closest("we", List.of("wei", "lin")));
    }

    @Test
    void theAllowanceGrowsWithTheName() {
        assertNull(DidYouMean.closest("ab", List.of("xyz")), "3 edits for a 2-letter name is no typo");
        assertEquals("abcd", DidYouMean.closest("abxx", List.of("abcd")), "2 edits allowed up to 8 letters");
        assertNull(DidYouMean.closest("abxxx", List.of("abcde")), "but not 3");
        assertEquals("Europe/Berlin", DidYouMean.closest("Europe/Berln", List.of("Europe/Paris", "Europe/Berlin")));
        assertEquals("", DidYouMean.hint("frobnicate", List.of("avg", "min")));
    }

    @Test
    void tiesGoToTheFirstInNameOrderWhateverTheListOrder() {
        assertEquals("bat", DidYouMean.closest("cat", List.of("hat", "bat")));
        assertEquals("bat", DidYouMean.closest("cat", List.of("bat", "hat")));
    }

    @Test
    void aChosenNameIsWordedTheSameWay() {
        assertEquals(" (did you mean `predict`?)", DidYouMean.wording("predict"));
        assertEquals("", DidYouMean.wording(null));
    }
}
