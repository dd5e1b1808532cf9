package io.gpuwatch.probe.app;

import java.util.List;

/** The outcome of reading a scrape config: the config, or every problem found, in file order. */
public sealed interface ScrapeConfigLoad {
    /** A valid config. */
    record Loaded(ScrapeConfig config) implements ScrapeConfigLoad {
    }

    /** The problems that kept the file from loading. */
    record Invalid(List<ScrapeConfigError> errors) implements ScrapeConfigLoad {
        public Invalid {
            errors = List.copyOf(errors);
        }
    }
}
