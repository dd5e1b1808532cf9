package io.gpuwatch.rules.source;

import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

import java.util.Optional;

/**
 * A YAML file's text as code points (the unit of YAML marks), turning a character offset inside a scalar's value
 * back into the line and column of the file where that character was written: the one place every reader of a
 * rule, test, alerting or on-call file gets its file:line:col from.
 */
public final class SourceText {
    private final int[] cps;
    private final int[] lineStarts;

    /** The text of the file as the YAML parser read it. */
    public SourceText(String text) {
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

    /** A 1-based line and column, written {@code line:column}. */
    public record Position(int line, int column) {
        @Override
        public String toString() {
            return line + ":" + column;
        }
    }

    /** A file's YAML tree (empty for an empty document), or the error that stopped the parser, at its place. */
    public record Composed(Optional<Node> root, Diagnostic error) {
    }

    /** Composes a file's text into its node tree, keeping the marks every reader turns into file:line:col. */
    public static Composed compose(String file, String text) {
        try {
            return new Composed(new Compose(LoadSettings.builder().setLabel(file).build()).composeString(text), null);
        } catch (MarkedYamlEngineException e) {
            Position p = e.getProblemMark().or(e::getContextMark).map(SourceText::of).orElse(new Position(1, 1));
            String context = e.getContext() == null ? "" : " (" + e.getContext() + ")";
            String problem = e.getProblem() != null ? e.getProblem() : e.getMessage();
            return new Composed(Optional.empty(),
                    Diagnostic.error(file, p.line(), p.column(), "not valid YAML: " + problem + context));
        } catch (YamlEngineException e) {
            return new Composed(Optional.empty(), Diagnostic.error(file, 1, 1, "not valid YAML: " + e.getMessage()));
        }
    }

    /** Where a node starts. */
    public static Position of(Node node) {
        return node.getStartMark().map(SourceText::of).orElse(new Position(1, 1));
    }

    /** Where a mark points. */
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
     * in step finds it; should an escape defeat the walk, the scalar's start is the answer. An offset at the end
     * of the value is just after its last character.
     */
    public Position inScalar(ScalarNode node, int offset) {
        Position fallback = of(node);
        if (node.getStartMark().isEmpty() || node.getEndMark().isEmpty()) {
            return fallback;
        }
        String v = node.getValue();
        int[] value = v.codePoints().toArray();
        int target = v.codePointCount(0, Math.min(offset, v.length()));
        int end = Math.min(node.getEndMark().get().getIndex(), cps.length);
        int j = contentStart(node, node.getStartMark().get().getIndex(), end);
        if (target >= value.length) {
            if (value.length == 0) {
                return ofIndex(j);
            }
            Position last = inScalar(node, v.offsetByCodePoints(0, value.length - 1));
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
