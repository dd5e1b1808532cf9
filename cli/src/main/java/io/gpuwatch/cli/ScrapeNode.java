package io.gpuwatch.cli;

import io.gpuwatch.probe.app.AppScraper;
import io.gpuwatch.probe.app.ScrapeConfig;
import io.gpuwatch.probe.trace.Recording;
import io.gpuwatch.probe.uplink.Uplink;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.vertx.core.Vertx;

import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A probe connection of its own for the application layer, where no GPU reader gives one: a hello without cards,
 * then the app frames of the configured inference servers.
 */
final class ScrapeNode {
    private final Uplink uplink;
    private final AppScraper scraper;

    private ScrapeNode(Uplink uplink, AppScraper scraper) {
        this.uplink = uplink;
        this.scraper = scraper;
    }

    /** Connects and scrapes every interval; {@code recording} (may be null) also gets the frames. */
    static ScrapeNode start(Vertx vertx, UplinkConfig config, Hello hello, ScrapeConfig scrape, Recording recording,
                            LongSupplier clock) {
        Uplink uplink = new Uplink(vertx, config, hello);
        Consumer<Frame> sink = recording == null ? uplink::send : recording.tee(hello, uplink::send);
        AppScraper scraper = new AppScraper(vertx, scrape, clock, sink);
        uplink.start();
        scraper.start();
        return new ScrapeNode(uplink, scraper);
    }

    String node() {
        return uplink.node();
    }

    /** Stops scraping and closes the connection, waiting a few seconds at most. */
    void stop() {
        ProbeCommand.Stop.await(scraper.stop());
        ProbeCommand.Stop.await(uplink.close());
    }
}
