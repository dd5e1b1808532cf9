package io.gpuwatch.gateway.route;

import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * A config's text as code points (the unit of YAML marks), turning an offset inside a scalar's value back into
 * the line and column where that character was written, so that an error inside a matcher points at it.
 */
final class ScalarPlaces {
    private final int[] cps;
    private final int[] lineStarts;

    /** A 1-based line and column. */
    record Position(int line, int column) {
    }

    ScalarPlaces(String text) {
        this.cps = text.codePoints().toArray();
        int lines = 1;
        for (int i = 0; i < cps.length; i++) {
            if (cps[i] == '\n') {
                lines++;
            }
        }
        lineStarts = new int[lines];
        int l = 1;
        for (int i = 0; i < cps.length; i++) {
            if (cps[i] == '\n') {
                lineStarts[l++] = i + 1;
            }
        }
    }

    static Position of(Node node) {
        return node.getStartMark().map(m -> new Position(m.getLine() + 1, m.getColumn() + 1))
                .orElse(new Position(1, 1));
    }

    private Position ofIndex(int index) {
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
     * Where the character at {@code offset} of the scalar's value was written: the value is a subsequence of its
     * source (quoting drops escapes, folding drops breaks), so walking both in step finds it; when an escape
     * defeats the walk, the scalar's start is the answer.
     */
    Position inScalar(ScalarNode node, int offset) {
        Position fallback = of(node);
        if (node.getStartMark().isEmpty() || node.getEndMark().isEmpty()) {
            return fallback;
        }
        int[] value = node.getValue().codePoints().toArray();
        int target = node.getValue().codePointCount(0, Math.min(offset, node.getValue().length()));
        int end = Math.min(node.getEndMark().get().getIndex(), cps.length);
        int j = node.getStartMark().get().getIndex();
        ScalarStyle style = node.getScalarStyle();
        if (style == ScalarStyle.SINGLE_QUOTED || style == ScalarStyle.DOUBLE_QUOTED) {
            j++;
        }
        if (target >= value.length) {
            // just past the value: after its last character
            if (value.length == 0) {
                return fallback;
            }
            Position last = inScalar(node, node.getValue().offsetByCodePoints(0, value.length - 1));
            return new Position(last.line(), last.column() + 1);
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
}
