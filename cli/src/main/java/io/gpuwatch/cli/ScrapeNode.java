package io.gpuwatch.cli;

import io.gpuwatch.probe.app.AppScraper;
import io.gpuwatch.probe.app.ScrapeConfig;
import io.gpuwatch.probe.trace.Recording;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.gpuwatch.probe.uplink.UplinkCore;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;

import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A probe connection of its own for the application layer, where no GPU reader gives one: a hello without cards,
 * then the app frames of the configured inference servers. Runs on its own threads (the socket uplink's and the
 * scraper's), without Vert.x.
 */
final class ScrapeNode {
    private final UplinkCore uplink;
    private final AppScraper scraper;

    private ScrapeNode(UplinkCore uplink, AppScraper scraper) {
        this.uplink = uplink;
        this.scraper = scraper;
    }

    /** Connects and scrapes every interval; {@code recording} (may be null) also gets the frames. */
    static ScrapeNode start(UplinkConfig config, Hello hello, ScrapeConfig scrape, Recording recording,
                            LongSupplier clock) {
        UplinkCore uplink = UplinkCore.overSockets(config, hello, clock);
        Consumer<Frame> sink = recording == null ? uplink::send : recording.tee(hello, uplink::send);
        AppScraper scraper = new AppScraper(scrape, clock, sink);
        uplink.start();
        scraper.start();
        return new ScrapeNode(uplink, scraper);
    }

    String node() {
        return uplink.node();
    }

    /** Stops scraping and closes the connection, waiting a few seconds at most. */
    void stop() {
        scraper.stop();
        ProbeCommand.await(uplink.close());
    }
}
