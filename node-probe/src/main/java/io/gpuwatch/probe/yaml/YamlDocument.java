package io.gpuwatch.probe.yaml;

import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.Node;

import java.util.Optional;

/**
 * Composes a probe config file (scenario, labels, scrape config) into its node tree, keeping the marks the
 * loaders turn into file:line:column errors; text that is not YAML becomes a {@link Problem} at its place.
 */
public final class YamlDocument {
    private YamlDocument() {
    }

    /** Why a text is not YAML; line and column count from 1, and are 0 when the parser named no place. */
    public record Problem(int line, int column, String message) {
    }

    /** The root node (empty for an empty document), or the problem that kept the text from composing. */
    public record Composed(Optional<Node> root, Problem problem) {
    }

    /** A problem at the place a node starts (0:0 when the node carries no mark). */
    public static Problem at(Node node, String message) {
        return node.getStartMark().map(m -> new Problem(m.getLine() + 1, m.getColumn() + 1, message))
                .orElse(new Problem(0, 0, message));
    }

    /** Composes {@code text}; {@code source} labels the marks. */
    public static Composed compose(String source, String text) {
        try {
            return new Composed(new Compose(LoadSettings.builder().setLabel(source).build()).composeString(text), null);
        } catch (MarkedYamlEngineException e) {
            Mark mark = e.getProblemMark().or(e::getContextMark).orElse(null);
            String problem = "not valid YAML: " + (e.getProblem() != null ? e.getProblem() : e.getMessage());
            return new Composed(Optional.empty(), mark == null ? new Problem(0, 0, problem)
                    : new Problem(mark.getLine() + 1, mark.getColumn() + 1, problem));
        } catch (YamlEngineException e) {
            return new Composed(Optional.empty(), new Problem(0, 0, "not valid YAML: " + e.getMessage()));
        }
    }
}
