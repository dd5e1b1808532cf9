package io.gpuwatch.rules;

import io.gpuwatch.rules.dsl.SeriesCatalog;
import io.gpuwatch.rules.metric.SeriesSpec;
import io.gpuwatch.rules.scope.ScopeKind;
import io.gpuwatch.rules.source.Diagnostic;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * An immutable, compiled set of rules with the series they read. Load it with {@link #load} or {@link #parse}.
 * Its rules and derivations are evaluated by one thread at a time.
 */
public final class RuleSet {
    private static final RuleSet EMPTY = new RuleSet(List.of(), new SeriesCatalog());

    private final List<Rule> rules;
    private final Map<ScopeKind, List<Rule>> byScope = new EnumMap<>(ScopeKind.class);
    private final List<SeriesSpec> series;
    private final Map<String, Integer> seriesIds = new HashMap<>();
    private final long horizonMs;
    private final Set<String> baselined;

    private RuleSet(List<Rule> rules, SeriesCatalog catalog) {
        this.rules = List.copyOf(rules);
        for (ScopeKind k : ScopeKind.values()) {
            byScope.put(k, rules.stream().filter(r -> r.scope() == k).toList());
        }
        this.series = catalog.specs();
        for (SeriesSpec s : series) {
            seriesIds.put(s.name(), s.id());
        }
        this.horizonMs = catalog.horizonMs();
        this.baselined = catalog.baselined();
    }

    public static RuleSet empty() {
        return EMPTY;
    }

    /**
     * Loads rule files, and from directories every {@code *.yml}/{@code *.yaml} below them in path order,
     * skipping {@code tests} folders (they hold rule tests) and hidden files. Any error rejects the whole load.
     */
    public static RuleLoad load(List<Path> filesOrDirs) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        Set<Path> files = new LinkedHashSet<>();
        for (Path p : filesOrDirs) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    walk.filter(f -> Files.isRegularFile(f) && isRuleFile(p, f)).map(Path::normalize).sorted()
                            .forEach(files::add);
                } catch (IOException | UncheckedIOException e) {
                    diagnostics.add(Diagnostic.error(p.toString(), 0, 0, "cannot list directory: " + e.getMessage()));
                }
            } else {
                files.add(p.normalize());
            }
        }
        RuleFileReader reader = new RuleFileReader(new SeriesCatalog(), diagnostics);
        for (Path f : files) {
            String text;
            try {
                text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(Files.readAllBytes(f))).toString();
            } catch (CharacterCodingException e) {
                diagnostics.add(Diagnostic.error(f.toString(), 0, 0, "not UTF-8 text"));
                continue;
            } catch (IOException e) {
                diagnostics.add(Diagnostic.error(f.toString(), 0, 0, "cannot read: " + describe(e)));
                continue;
            }
            reader.read(f.toString(), text);
        }
        return reader.finish();
    }

    private static boolean isRuleFile(Path root, Path f) {
        Path rel = root.relativize(f);
        for (int i = 0; i < rel.getNameCount(); i++) {
            String part = rel.getName(i).toString();
            if (part.startsWith(".") || i < rel.getNameCount() - 1 && part.equals("tests")) {
                return false;
            }
        }
        String name = f.getFileName().toString();
        return name.endsWith(".yml") || name.endsWith(".yaml");
    }

    private static String describe(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** Parses one rule file's text; {@code fileName} is what diagnostics and rules name as its file. */
    public static RuleLoad parse(String fileName, String yamlText) {
        RuleFileReader reader = new RuleFileReader(new SeriesCatalog(), new ArrayList<>());
        reader.read(fileName, yamlText);
        return reader.finish();
    }

    static RuleSet of(List<Rule> rules, SeriesCatalog catalog) {
        return new RuleSet(rules, catalog);
    }

    /** Every rule, in file order. */
    public List<Rule> rules() {
        return rules;
    }

    /**
     * Compiles every rule's templates now; returns this set. Offline tools leave it to the first render (most rules
     * never fire in a backtest, and compiling all was a sixth of loading a pack); a server calls it as the rules
     * load, off its event loop, so that no rule's first page waits for it.
     */
    public RuleSet prepareRendering() {
        for (Rule r : rules) {
            r.prepareRendering();
        }
        return this;
    }

    /** The rules of one scope kind, in file order. */
    public List<Rule> rules(ScopeKind kind) {
        return byScope.getOrDefault(kind, Collections.emptyList());
    }

    /** Every series the rules read, indexed by {@link SeriesSpec#id()}. */
    public List<SeriesSpec> series() {
        return series;
    }

    /** The id of the series of this name (a metric's field, or a derived condition), or -1. */
    public int seriesId(String name) {
        Integer id = seriesIds.get(name);
        return id == null ? -1 : id;
    }

    /**
     * The names of the series (metrics and derived metrics) some rule reads through {@code baseline(…)}: those the
     * gateway learns per business (per queue for scheduling metrics).
     */
    public Set<String> baselined() {
        return baselined;
    }

    /** The longest window any rule reads, series or events, in milliseconds. */
    public long horizonMs() {
        return horizonMs;
    }
}
