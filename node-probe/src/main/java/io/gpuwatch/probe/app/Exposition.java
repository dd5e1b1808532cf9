package io.gpuwatch.probe.app;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A parsed metrics exposition: its samples in order, the HELP and TYPE of its families, and the lines skipped. */
public final class Exposition {
    private final List<ExpositionSample> samples;
    private final Map<String, String> types;
    private final Map<String, String> help;
    private final List<ExpositionError> errors;
    private final Map<String, List<ExpositionSample>> byName = new HashMap<>();
    private final Map<String, Map<Map<String, String>, ExpositionSample>> bySeries = new HashMap<>();

    Exposition(List<ExpositionSample> samples, Map<String, String> types, Map<String, String> help,
               List<ExpositionError> errors) {
        this.samples = List.copyOf(samples);
        this.types = Map.copyOf(types);
        this.help = Map.copyOf(help);
        this.errors = List.copyOf(errors);
        for (ExpositionSample s : this.samples) {
            byName.computeIfAbsent(s.name(), k -> new ArrayList<>()).add(s);
            bySeries.computeIfAbsent(s.name(), k -> new HashMap<>()).put(s.labels(), s);
        }
    }

    public List<ExpositionSample> samples() {
        return samples;
    }

    /** The samples with this exact name (for a histogram, ask for {@code x_bucket}, {@code x_sum}, {@code x_count}). */
    public List<ExpositionSample> named(String name) {
        return byName.getOrDefault(name, List.of());
    }

    /** The sample of this series, or null. */
    public ExpositionSample find(String name, Map<String, String> labels) {
        Map<Map<String, String>, ExpositionSample> series = bySeries.get(name);
        return series == null ? null : series.get(labels);
    }

    /** The TYPE given for a family ({@code counter}, {@code gauge}, {@code histogram}, …), or null. */
    public String type(String family) {
        return types.get(family);
    }

    /** The HELP text of a family, unescaped, or null. */
    public String help(String family) {
        return help.get(family);
    }

    /** The lines skipped, in order. */
    public List<ExpositionError> errors() {
        return errors;
    }
}
