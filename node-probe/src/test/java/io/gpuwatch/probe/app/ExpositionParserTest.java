package io.gpuwatch.probe.app;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExpositionParserTest {
    private static List<String> errors(String text) {
        return ExpositionParser.parse(text).errors().stream().map(ExpositionError::toString).toList();
    }

    /** The one error of a one-line exposition, which keeps no sample. */
    private static String onlyError(String line) {
        Exposition e = ExpositionParser.parse(line + "\n");
        assertEquals(List.of(), e.samples(), () -> "expected " + line + " to be skipped");
        assertEquals(1, e.errors().size(), () -> "expected one error, got " + e.errors());
        return e.errors().get(0).toString();
    }

    private static ExpositionSample only(String text) {
        Exposition e = ExpositionParser.parse(text);
        assertEquals(List.of(), e.errors());
        assertEquals(1, e.samples().size());
        return e.samples().get(0);
    }

    @Test
    void helpAndTypeAreKeptWithHelpEscapesUndone() {
        Exposition e = ExpositionParser.parse("""
                # HELP http_requests_total The total number of HTTP requests.\\nCounted at the router, in \\\\api.
                # TYPE http_requests_total counter
                http_requests_total{method="post",code="200"} 1027 1395066363000
                """);
        assertEquals("The total number of HTTP requests.\nCounted at the router, in \\api.", e.help("http_requests_total"));
        assertEquals("counter", e.type("http_requests_total"));
        assertEquals(List.of(new ExpositionSample("http_requests_total", Map.of("method", "post", "code", "200"), 1027,
                1_395_066_363_000L)), e.samples());
        assertNull(e.type("other"));
    }

    @Test
    void labelValuesUndoTheirThreeEscapes() {
        ExpositionSample s = only("msdos_file_access_time_seconds{path=\"C:\\\\DIR\\\\FILE.TXT\",error=\"Cannot find "
                + "file:\\n\\\"FILE.TXT\\\"\"} 1.458255915e9\n");
        assertEquals(Map.of("path", "C:\\DIR\\FILE.TXT", "error", "Cannot find file:\n\"FILE.TXT\""), s.labels());
        assertEquals(1.458255915e9, s.value());
    }

    @Test
    void valuesTakeEveryFloatSpelling() {
        Exposition e = ExpositionParser.parse("""
                a 1.2e+06
                b -Inf
                c +Inf
                d NaN
                e .5
                f -0.0
                g Inf
                h nan
                i 7
                j 1E-3
                """);
        assertEquals(List.of(), e.errors());
        double[] values = e.samples().stream().mapToDouble(ExpositionSample::value).toArray();
        assertEquals(1.2e6, values[0]);
        assertEquals(Double.NEGATIVE_INFINITY, values[1]);
        assertEquals(Double.POSITIVE_INFINITY, values[2]);
        assertTrue(Double.isNaN(values[3]));
        assertEquals(0.5, values[4]);
        assertEquals(-0.0, values[5]);
        assertEquals(Double.POSITIVE_INFINITY, values[6]);
        assertTrue(Double.isNaN(values[7]));
        assertEquals(7, values[8]);
        assertEquals(0.001, values[9]);
    }

    @Test
    void timestampsMayBeNegativeAndAreOptional() {
        Exposition e = ExpositionParser.parse("x 1 -1395066363000\ny 2\n");
        assertEquals(-1_395_066_363_000L, e.samples().get(0).timestampMs());
        assertNull(e.samples().get(1).timestampMs());
    }

    @Test
    void blanksTrailingCommasEmptyBracesCrlfAndCommentsAreAccepted() {
        Exposition e = ExpositionParser.parse("# a plain comment\r\n\r\n  up{ job = \"node\" ,\tzone=\"a\", } \t 1 \r\n"
                + "down{} 0\n#   a note, not metadata\nlast 3");
        assertEquals(List.of(), e.errors());
        assertEquals(List.of(new ExpositionSample("up", Map.of("job", "node", "zone", "a"), 1, null),
                new ExpositionSample("down", Map.of(), 0, null), new ExpositionSample("last", Map.of(), 3, null)),
                e.samples());
    }

    @Test
    void histogramsKeepBucketsSumAndCount() {
        Exposition e = ExpositionParser.parse("""
                # TYPE rpc_duration_seconds histogram
                rpc_duration_seconds_bucket{le="0.05"} 24054
                rpc_duration_seconds_bucket{le="0.1"} 33444
                rpc_duration_seconds_bucket{le="+Inf"} 144320
                rpc_duration_seconds_sum 53423
                rpc_duration_seconds_count 144320
                # TYPE rpc_latency summary
                rpc_latency{quantile="0.99"} 76656
                rpc_latency_sum 1.7560473e+07
                rpc_latency_count 2693
                """);
        assertEquals(List.of(), e.errors());
        assertEquals(3, e.named("rpc_duration_seconds_bucket").size());
        assertEquals(144320, e.find("rpc_duration_seconds_bucket", Map.of("le", "+Inf")).value());
        assertEquals(53423, e.named("rpc_duration_seconds_sum").get(0).value());
        assertEquals(76656, e.find("rpc_latency", Map.of("quantile", "0.99")).value());
    }

    @Test
    void openMetricsEofEndsTheExposition() {
        Exposition e = ExpositionParser.parse("a_total 1\n# EOF\n");
        assertEquals(List.of(), e.errors());
        assertEquals(1, e.samples().size());
        Exposition after = ExpositionParser.parse("a_total 1\n# EOF\nb 2\nc 3\n");
        assertEquals(List.of("3:1: nothing may follow '# EOF'; the rest of the exposition is ignored"),
                after.errors().stream().map(ExpositionError::toString).toList());
        assertEquals(1, after.samples().size());
    }

    @Test
    void aBadLineIsSkippedAndTheRestKept() {
        Exposition e = ExpositionParser.parse("good 1\nbad{a=\"1\" 2\nalso_good{a=\"1\"} 3\n");
        assertEquals(List.of("2:11: expected ',' or '}' after the value of label 'a'"),
                e.errors().stream().map(ExpositionError::toString).toList());
        assertEquals(List.of("good", "also_good"), e.samples().stream().map(ExpositionSample::name).toList());
    }

    @Test
    void sampleSyntaxErrorsNameTheirColumn() {
        assertEquals("1:1: expected a metric name, got '{'", onlyError("{a=\"b\"} 1"));
        assertEquals("1:1: expected a metric name, got '1'", onlyError("1abc 1"));
        assertEquals("1:4: expected a value after the metric name, got the end of the line", onlyError("foo"));
        assertEquals("1:4: unexpected '-'; expected a space and then a value after the metric name",
                onlyError("foo-bar 1"));
        assertEquals("1:11: unexpected '1'; expected a space and then a value after the labels",
                onlyError("foo{a=\"b\"}1"));
        assertEquals("1:5: 'abc' is not a number", onlyError("foo abc"));
        assertEquals("1:5: '0x1F' is not a number", onlyError("foo 0x1F"));
        assertEquals("1:5: '1_000' is not a number", onlyError("foo 1_000"));
        assertEquals("1:7: '12.5' is not a timestamp (whole milliseconds since the epoch)", onlyError("foo 1 12.5"));
        assertEquals("1:7: '99999999999999999999' is not a timestamp (whole milliseconds since the epoch)",
                onlyError("foo 1 99999999999999999999"));
        assertEquals("1:9: unexpected text after the timestamp", onlyError("foo 1 2 3"));
    }

    @Test
    void labelErrorsNameTheirColumn() {
        assertEquals("1:11: expected ',' or '}' after the value of label 'a'", onlyError("foo{a=\"b\" 1"));
        assertEquals("1:12: the label value is not closed with '\"'", onlyError("foo{a=\"b} 1"));
        assertEquals("1:8: unknown escape '\\t' in a label value; only \\\\, \\\" and \\n are allowed",
                onlyError("foo{a=\"\\t\"} 1"));
        assertEquals("1:7: expected '=' after the label name 'a', got '\"'", onlyError("foo{a \"b\"} 1"));
        assertEquals("1:7: expected a quoted label value, got 'b'", onlyError("foo{a=b} 1"));
        assertEquals("1:11: label 'a' is given twice", onlyError("foo{a=\"1\",a=\"2\"} 1"));
        assertEquals("1:5: expected a label name, got '1'", onlyError("foo{1a=\"x\"} 1"));
        assertEquals("1:6: expected '=' after the label name 'a', got ':'", onlyError("foo{a:b=\"x\"} 1"));
        assertEquals("1:12: labels are not closed with '}'", onlyError("foo{a=\"b\", "));
    }

    @Test
    void aSeriesGivenTwiceKeepsTheFirst() {
        Exposition e = ExpositionParser.parse("foo{a=\"1\",b=\"2\"} 1\nfoo{b=\"2\",a=\"1\"} 2\nfoo{a=\"2\",b=\"2\"} 3\n");
        assertEquals(List.of("2:1: series foo{b=\"2\",a=\"1\"} is given twice; the first is kept"),
                e.errors().stream().map(ExpositionError::toString).toList());
        assertEquals(1, e.find("foo", Map.of("a", "1", "b", "2")).value());
        assertEquals(2, e.samples().size());
    }

    @Test
    void metadataErrorsNameTheirColumn() {
        assertEquals(List.of("1:12: unknown metric type 'countr'; known types: counter, gauge, histogram, summary, "
                + "untyped"), errors("# TYPE foo countr\n"));
        assertEquals(List.of("1:11: expected a type after the metric name, got the end of the line"),
                errors("# TYPE foo\n"));
        assertEquals(List.of("1:20: unexpected text after the type"), errors("# TYPE foo counter x\n"));
        assertEquals(List.of("2:8: TYPE for 'foo' is given twice"), errors("# TYPE foo gauge\n# TYPE foo gauge\n"));
        assertEquals(List.of("2:8: TYPE for 'foo' comes after its samples; it must come first"),
                errors("foo_bucket{le=\"1\"} 1\n# TYPE foo histogram\n"));
        assertEquals(List.of("2:8: HELP for 'foo' is given twice"), errors("# HELP foo one\n# HELP foo two\n"));
        assertEquals(List.of("1:7: expected a metric name"), errors("# HELP\n"));
        assertEquals(List.of("1:11: unexpected '{' in the metric name of HELP"), errors("# HELP foo{a} x\n"));
    }

    @Test
    void histogramBucketsAndSummaryQuantilesNeedTheirBound() {
        assertEquals(List.of("2:9: a histogram bucket needs the 'le' label"),
                errors("# TYPE h histogram\nh_bucket{x=\"1\"} 1\n"));
        assertEquals(List.of("2:13: 'le' must be a number, got \"fast\""),
                errors("# TYPE h histogram\nh_bucket{le=\"fast\"} 1\n"));
        assertEquals(List.of("2:2: a summary quantile needs the 'quantile' label"), errors("# TYPE s summary\ns 1\n"));
        // without a TYPE line nothing says these are buckets
        assertEquals(List.of(), errors("h_bucket{x=\"1\"} 1\n"));
    }
}
