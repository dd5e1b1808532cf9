package io.gpuwatch.cli.alerting;

import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.route.RoutingLoad;
import io.gpuwatch.notify.secret.SecretSource;
import io.gpuwatch.rules.source.Diagnostic;
import io.gpuwatch.rules.source.SourceText;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * One alerting file: {@code receivers:} next to the {@code route:}, {@code inhibit_rules:},
 * {@code time_intervals:} and {@code owners:} the routing reader takes. Every receiver the routing names must be
 * one of the file's receivers; a file without {@code receivers:} is checked against the names the caller gives.
 */
public final class AlertingFile {
    /** Stands in for a secret that is not checked: a URL, so the URL checks of chat receivers still pass. */
    static final String UNCHECKED_SECRET = "https://secret.invalid/unchecked";

    private AlertingFile() {
    }

    /**
     * Reads {@code file}, resolving secrets from {@code secrets}; an unset one is an error.
     * {@code receiversIfNone} are the receiver names for a file without {@code receivers:} (null: unchecked).
     */
    public static AlertingLoad load(Path file, SecretSource secrets, Set<String> receiversIfNone) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return failed(file, "cannot read: no such file");
        } catch (IOException e) {
            return failed(file, "cannot read: " + e.getMessage());
        }
        return parse(file.toString(), text, secrets, (path, node) -> List.of(), receiversIfNone);
    }

    /**
     * Reads {@code file} without requiring its secrets, as CI checks a file whose secrets only production has:
     * each environment variable or file that cannot be read is a warning at its receiver instead of an error.
     */
    public static AlertingLoad loadWithoutSecrets(Path file, Function<String, String> env,
                                                  Set<String> receiversIfNone) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return failed(file, "cannot read: no such file");
        } catch (IOException e) {
            return failed(file, "cannot read: " + e.getMessage());
        }
        List<String> unread = new ArrayList<>();
        SecretSource lenient = new SecretSource(name -> {
            String v = env.apply(name);
            if (v == null || v.isBlank()) {
                unread.add("environment variable " + name);
                return UNCHECKED_SECRET;
            }
            return v;
        }, p -> {
            try {
                return Files.readString(p, StandardCharsets.UTF_8);
            } catch (IOException | RuntimeException e) {
                unread.add("file " + p);
                return UNCHECKED_SECRET;
            }
        });
        return parse(file.toString(), text, lenient, (path, node) -> {
            List<Diagnostic> out = new ArrayList<>();
            SourceText.Position p = SourceText.of(node);
            for (String what : unread) {
                out.add(Diagnostic.warning(file.toString(), p.line(), p.column(), path + ": " + what
                        + " is not set (not required with --no-secrets; the gateway will need it)"));
            }
            unread.clear();
            return out;
        }, receiversIfNone);
    }

    /** Reads alerting config {@code text}, naming {@code file} in diagnostics. */
    public static AlertingLoad parse(String file, String text, SecretSource secrets, Set<String> receiversIfNone) {
        return parse(file, text, secrets, (path, node) -> List.of(), receiversIfNone);
    }

    private static AlertingLoad parse(String file, String text, SecretSource secrets,
                                      BiFunction<String, Node, List<Diagnostic>> afterEach,
                                      Set<String> receiversIfNone) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        ReceiverReader.Result receivers = null;
        Optional<Node> root;
        Object loaded;
        try {
            LoadSettings settings = LoadSettings.builder().setLabel(file).build();
            root = new Compose(settings).composeString(text);
            loaded = new Load(settings).loadFromString(text);
        } catch (YamlEngineException e) {
            // the routing reader reports the syntax error with its place
            root = Optional.empty();
            loaded = null;
        }
        if (root.isPresent() && root.get() instanceof MappingNode top && loaded instanceof Map<?, ?> values) {
            for (NodeTuple t : top.getValue()) {
                if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals("receivers")) {
                    receivers = new ReceiverReader(file, secrets, afterEach)
                            .read(t.getValueNode(), values.get("receivers"));
                    break;
                }
            }
        }
        Set<String> names = receivers == null ? receiversIfNone : receivers.names();
        RoutingLoad routing = RoutingConfig.parse(file, text, names == null ? null : new TreeSet<>(names));
        diagnostics.addAll(routing.diagnostics());
        if (receivers != null) {
            diagnostics.addAll(receivers.diagnostics());
        }
        diagnostics.sort(Comparator.comparingInt(Diagnostic::line).thenComparingInt(Diagnostic::column));
        return new AlertingLoad(receivers == null ? List.of() : receivers.receivers(), routing.config(),
                receivers != null, diagnostics);
    }

    private static AlertingLoad failed(Path file, String message) {
        return new AlertingLoad(List.of(), null, false, List.of(Diagnostic.error(file.toString(), 0, 0, message)));
    }
}
