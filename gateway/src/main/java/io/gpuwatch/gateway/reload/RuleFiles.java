package io.gpuwatch.gateway.reload;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Where the gateway's rules come from (files and directories, as {@code RuleSet.load} takes them) and how often
 * to look at them for changes; {@link Duration#ZERO} turns the file watcher off.
 */
public record RuleFiles(List<Path> paths, Duration pollInterval) {
    /** Five seconds: a saved file is live within that, and a stat of a few files is nothing. */
    public static final Duration DEFAULT_POLL = Duration.ofSeconds(5);

    public RuleFiles {
        paths = List.copyOf(paths);
        if (pollInterval.isNegative()) {
            throw new IllegalArgumentException("the poll interval cannot be negative, got " + pollInterval);
        }
    }

    /** Rules given as a set, with no files behind them: nothing to reload. */
    public static RuleFiles none() {
        return new RuleFiles(List.of(), Duration.ZERO);
    }
}
