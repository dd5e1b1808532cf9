package io.gpuwatch.cli;

import io.gpuwatch.probe.app.AppScraper;
import io.gpuwatch.probe.app.ScrapeConfig;
import io.gpuwatch.probe.attribution.KubeletConfig;
import io.gpuwatch.probe.attribution.KubeletPodLabels;
import io.gpuwatch.probe.attribution.PodLabelSource;
import io.gpuwatch.protocol.Frame;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

import java.io.PrintWriter;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The HTTP clients an NVML probe runs for {@code --kubelet} and {@code --scrape-config}, on a small Vert.x of
 * their own (one event loop, a small worker pool). A class apart, so that a probe with neither loads no Vert.x.
 */
final class NvmlHttpClients {
    private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(2)
            .setInternalBlockingPoolSize(2));
    private KubeletPodLabels pods;
    private AppScraper scraper;

    /** Starts reading pod labels from the kubelet at {@code url}; problems are printed to {@code err}. */
    PodLabelSource podLabels(String node, String url, PrintWriter err) {
        pods = new KubeletPodLabels(vertx, KubeletConfig.of(node).withUrl(url), problem -> {
            err.println("kubelet: " + problem);
            err.flush();
        });
        pods.start();
        return pods;
    }

    /** Starts scraping the inference servers of {@code scrape} into {@code sink}. */
    void scrape(ScrapeConfig scrape, LongSupplier clock, Consumer<Frame> sink) {
        scraper = new AppScraper(vertx, scrape, clock, sink);
        scraper.start();
    }

    /** Stops what was started and the Vert.x, within a bound. */
    void stop() {
        if (scraper != null) {
            ProbeCommand.Stop.await(scraper.stop());
        }
        if (pods != null) {
            ProbeCommand.Stop.await(pods.stop());
        }
        ProbeCommand.Stop.vertx(vertx);
    }
}
