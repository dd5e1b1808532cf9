package io.gpuwatch.probe.app;

import java.time.Duration;
import java.util.List;

/** What the application layer scrapes, how often, and how long one scrape may take. */
public record ScrapeConfig(Duration interval, Duration timeout, List<ScrapeTarget> targets) {
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    public ScrapeConfig {
        targets = List.copyOf(targets);
    }
}
