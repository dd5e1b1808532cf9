package io.gpuwatch.gateway.ruletest;

import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * A test file's text as code points (the unit of YAML marks), turning an offset inside a scalar's value back
 * into the line and column where that character was written, also inside quoted and folded scalars.
 */
final class SourcePlaces {
    private final int[] cps;
    private final int[] lineStarts;

    SourcePlaces(String text) {
        this.cps = text.codePoints().toArray();
        int lines = 1;
        for (int i = 0; i < cps.length; i++) {
            if (isBreak(i)) {
                lines++;
            }
        }
        lineStarts = new int[lines];
        int l = 1;
        for (int i = 0; i < cps.length; i++) {
            if (isBreak(i)) {
                lineStarts[l++] = i + 1;
            }
        }
    }

    static TestFile.Place of(Node node) {
        return node.getStartMark().map(SourcePlaces::of).orElse(new TestFile.Place(1, 1));
    }

    static TestFile.Place of(Mark m) {
        return new TestFile.Place(m.getLine() + 1, m.getColumn() + 1);
    }

    /**
     * Where the character at {@code offset} of the scalar's value was written. The value is a subsequence of
     * the source (folding drops breaks and indentation, quoting the quotes), so walking both in step finds it;
     * should an escape defeat the walk, the scalar's start is the answer.
     */
    TestFile.Place inScalar(ScalarNode node, int offset) {
        TestFile.Place fallback = of(node);
        if (node.getStartMark().isEmpty() || node.getEndMark().isEmpty()) {
            return fallback;
        }
        String v = node.getValue();
        int[] value = v.codePoints().toArray();
        int target = v.codePointCount(0, Math.min(offset, v.length()));
        int end = Math.min(node.getEndMark().get().getIndex(), cps.length);
        int j = contentStart(node, node.getStartMark().get().getIndex(), end);
        if (target >= value.length) {
            // the end of the value: just after its last character
            if (value.length == 0) {
                return ofIndex(j);
            }
            TestFile.Place last = inScalar(node, v.offsetByCodePoints(0, value.length - 1));
            return new TestFile.Place(last.line(), last.column() + 1);
        }
        for (int i = 0; i <= target; i++) {
            while (j < end && cps[j] != value[i]) {
                j++;
            }
            if (j >= end) {
                return fallback;
            }
            if (i < target) {
                j++;
            }
        }
        return ofIndex(j);
    }

    private TestFile.Place ofIndex(int index) {
        int lo = 0;
        int hi = lineStarts.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (lineStarts[mid] <= index) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return new TestFile.Place(lo + 1, index - lineStarts[lo] + 1);
    }

    private boolean isBreak(int i) {
        return cps[i] == '\n' || cps[i] == '\r' && (i + 1 >= cps.length || cps[i + 1] != '\n');
    }

    /** Skips the opening quote of quoted scalars and the header line of block scalars. */
    private int contentStart(ScalarNode node, int start, int end) {
        ScalarStyle style = node.getScalarStyle();
        if (style == ScalarStyle.SINGLE_QUOTED || style == ScalarStyle.DOUBLE_QUOTED) {
            return start + 1;
        }
        if (style == ScalarStyle.LITERAL || style == ScalarStyle.FOLDED) {
            int j = start;
            while (j < end && cps[j] != '\n' && cps[j] != '\r') {
                j++;
            }
            return j + 1;
        }
        return start;
    }
}
