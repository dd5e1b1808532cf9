package io.gpuwatch.rules;

import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * A rule file's text as code points (the unit of YAML marks), turning a character offset inside a scalar's
 * value back into the line and column of the file where that character was written.
 */
public final class SourceText {
    private final int[] cps;
    private final int[] lineStarts;

    SourceText(String text) {
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

    private boolean isBreak(int i) {
        return cps[i] == '\n' || cps[i] == '\r' && (i + 1 >= cps.length || cps[i + 1] != '\n');
    }

    /** A 1-based line and column. */
    public record Position(int line, int column) {
    }

    public static Position of(Node node) {
        return node.getStartMark().map(SourceText::of).orElse(new Position(1, 1));
    }

    public static Position of(Mark m) {
        return new Position(m.getLine() + 1, m.getColumn() + 1);
    }

    Position ofIndex(int index) {
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
        return new Position(lo + 1, index - lineStarts[lo] + 1);
    }

    /**
     * Where the character at {@code offset} of the scalar's value was written. The value is a subsequence of the
     * scalar's source text (folding drops line breaks and indentation, quoting drops escapes), so walking both
     * in step finds it; should an escape defeat the walk, the scalar's start is the answer.
     */
    Position inScalar(ScalarNode node, int offset) {
        Position fallback = of(node);
        if (node.getStartMark().isEmpty() || node.getEndMark().isEmpty()) {
            return fallback;
        }
        int[] value = node.getValue().codePoints().toArray();
        int target = node.getValue().codePointCount(0, Math.min(offset, node.getValue().length()));
        int end = Math.min(node.getEndMark().get().getIndex(), cps.length);
        int j = contentStart(node, node.getStartMark().get().getIndex(), end);
        for (int i = 0; i <= target && i < value.length; i++) {
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
