package io.gpuwatch.gateway.match;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MatcherTest {
    private static final Map<String, String> PAGE = Map.of("alertname", "gpu-hot", "severity", "page", "node", "n1");

    @Test
    void equalityAndInequalityCompareWholeValues() throws Exception {
        assertTrue(MatcherParser.parse("severity=\"page\"").matches(PAGE));
        assertFalse(MatcherParser.parse("severity=\"pag\"").matches(PAGE));
        assertTrue(MatcherParser.parse("severity!=ticket").matches(PAGE));
        assertFalse(MatcherParser.parse("node != n1").matches(PAGE));
    }

    @Test
    void regexesAreAnchoredAtBothEnds() throws Exception {
        Matcher m = MatcherParser.parse("severity=~\"page|ticket\"");
        assertTrue(m.matches(PAGE));
        assertTrue(m.matches(Map.of("severity", "ticket")));
        assertFalse(m.matches(Map.of("severity", "pager")), "pager only contains page");
        assertFalse(m.matches(Map.of("severity", "xpage")));
        assertFalse(MatcherParser.parse("node!~\"n.*\"").matches(PAGE));
        assertTrue(MatcherParser.parse("node!~\"m.*\"").matches(PAGE));
    }

    @Test
    void aMissingLabelCountsAsEmpty() throws Exception {
        assertTrue(MatcherParser.parse("uuid=\"\"").matches(PAGE));
        assertFalse(MatcherParser.parse("uuid=~\".+\"").matches(PAGE));
        assertTrue(MatcherParser.parse("uuid!=GPU-1").matches(PAGE));
        assertTrue(MatcherParser.parse("uuid=~\"GPU-.*|\"").matches(PAGE));
    }

    @Test
    void listsReadWithOrWithoutBracesAndQuotedValuesKeepCommas() throws Exception {
        List<Matcher> list = MatcherParser.parseList("{alertname=\"a,b\", node=~\"n[12]\"}");
        assertEquals(List.of(Matcher.equal("alertname", "a,b"), Matcher.regex("node", "n[12]")), list);
        assertEquals(list, MatcherParser.parseList("alertname=\"a,b\",node=~n[12]"));
        assertEquals(List.of(), MatcherParser.parseList("{}"));
    }

    @Test
    void escapesInQuotedValues() throws Exception {
        Matcher m = MatcherParser.parse("summary=\"say \\\"hi\\\" \\\\ bye\"");
        assertEquals("say \"hi\" \\ bye", m.value());
        assertEquals(m, MatcherParser.parse(m.toString()), "toString reads back");
    }

    @Test
    void errorsNameTheOffsetOfTheProblem() {
        MatcherException noOp = assertThrows(MatcherException.class, () -> MatcherParser.parse("severity page"));
        assertEquals(9, noOp.offset());
        assertEquals("expected an operator (=, !=, =~, !~) after `severity`", noOp.getMessage());

        MatcherException badRegex = assertThrows(MatcherException.class,
                () -> MatcherParser.parse("node=~\"n(1\""));
        assertTrue(badRegex.getMessage().startsWith("bad regular expression for `node`"), badRegex.getMessage());
        assertTrue(badRegex.offset() >= 7 && badRegex.offset() <= 10, "inside the value: " + badRegex.offset());

        MatcherException unclosed = assertThrows(MatcherException.class, () -> MatcherParser.parse("a=\"x"));
        assertEquals(2, unclosed.offset());

        MatcherException noName = assertThrows(MatcherException.class, () -> MatcherParser.parse("=x"));
        assertEquals(0, noName.offset());

        MatcherException two = assertThrows(MatcherException.class, () -> MatcherParser.parse("a=1, b=2"));
        assertEquals(3, two.offset());

        MatcherException unbraced = assertThrows(MatcherException.class, () -> MatcherParser.parseList("{a=1"));
        assertEquals(4, unbraced.offset());
    }
}
