package io.gpuwatch.cli;

import io.gpuwatch.probe.app.AppScraper;
import io.gpuwatch.probe.app.ScrapeConfig;
import io.gpuwatch.probe.attribution.KubeletConfig;
import io.gpuwatch.probe.attribution.KubeletPodLabels;
import io.gpuwatch.probe.attribution.PodLabelSource;
import io.gpuwatch.protocol.Frame;

import java.io.PrintWriter;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The HTTP clients an NVML probe runs for {@code --kubelet} and {@code --scrape-config}, each on a daemon thread
 * of its own with the probe's small blocking HTTP client. A class apart, so that a probe with neither loads
 * none of their classes.
 */
final class NvmlHttpClients {
    private KubeletPodLabels pods;
    private AppScraper scraper;

    /** Starts reading pod labels from the kubelet at {@code url}; problems are printed to {@code err}. */
    PodLabelSource podLabels(String node, String url, PrintWriter err) {
        pods = new KubeletPodLabels(KubeletConfig.of(node).withUrl(url), problem -> {
            err.println("kubelet: " + problem);
            err.flush();
        });
        pods.start();
        return pods;
    }

    /** Starts scraping the inference servers of {@code scrape} into {@code sink}. */
    void scrape(ScrapeConfig scrape, LongSupplier clock, Consumer<Frame> sink) {
        scraper = new AppScraper(scrape, clock, sink);
        scraper.start();
    }

    /** Stops what was started, waiting a few seconds at most. */
    void stop() {
        if (scraper != null) {
            scraper.stop();
        }
        if (pods != null) {
            pods.stop();
        }
    }
}
