package io.gpuwatch.cli;

import io.gpuwatch.probe.app.ScrapeConfig;
import io.gpuwatch.probe.scenario.Scenario;
import io.gpuwatch.probe.sim.SimFleet;
import io.gpuwatch.probe.sim.SimRunner;
import io.gpuwatch.probe.trace.Recording;
import io.gpuwatch.probe.trace.ReplayReport;
import io.gpuwatch.probe.trace.ReplayRunner;
import io.gpuwatch.probe.trace.ReplaySpeed;
import io.gpuwatch.probe.trace.TraceWriter;
import io.gpuwatch.probe.uplink.UplinkConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.util.concurrent.CountDownLatch;

/**
 * The probe's modes that run on Vert.x ({@code --sim}, {@code --replay}), apart from
 * {@link ProbeCommand}: verifying a class loads the types its methods pass around, and the lean NVML probe
 * loads the command but must load no Vert.x.
 */
final class VertxModes {
    private final ProbeCommand cmd;

    VertxModes(ProbeCommand cmd) {
        this.cmd = cmd;
    }

    /** {@code --sim}: a simulated fleet, one uplink per node. */
    int sim(UplinkConfig config, PrintWriter err) throws Exception {
        Scenario sc = ProbeCommand.loadScenario(cmd.source.scenario, err);
        if (sc == null) {
            return 1;
        }
        ScrapeConfig scrape = cmd.loadScrapeConfig(err);
        if (cmd.scrapeConfig != null && scrape == null) {
            return 1;
        }
        Vertx vertx = Vertx.vertx();
        SimFleet fleet = new SimFleet(sc, cmd.clock.getAsLong());
        SimRunner runner = new SimRunner(vertx, fleet, n -> config, cmd.clock);
        TraceWriter writer = cmd.openTrace(err);
        if (cmd.record != null && writer == null) {
            return 1;
        }
        Recording rec = writer == null ? null : new Recording(writer);
        if (rec != null) {
            fleet.nodes().forEach(n -> rec.hello(fleet.hello(n)));
            runner.tap(rec::record);
        }
        ScrapeNode scraping = scrape == null ? null : ScrapeNode.start(config, cmd.scrapeHello(), scrape, rec, cmd.clock);
        CountDownLatch done = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            if (scraping != null) {
                scraping.stop();
            }
            ProbeCommand.Stop.quietly(runner.close(), vertx);
            ProbeCommand.closeTrace(writer, err);
            done.countDown();
        }, "gpuwatch-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        runner.start();
        err.println("probe: " + sc.nodes() + " simulated nodes × " + sc.cardsPerNode() + " cards"
                + (scraping != null ? " and node " + scraping.node() + " scraping " + scrape.targets().size()
                + " inference servers" : "") + " → " + ProbeCommand.gateways(config)
                + (cmd.record != null ? ", recording to " + cmd.record : ""));
        err.flush();
        runner.finished().onComplete(v -> done.countDown());
        done.await();
        ProbeCommand.unhook(hook);
        if (scraping != null) {
            scraping.stop();
        }
        ProbeCommand.Stop.quietly(runner.close(), vertx);
        ProbeCommand.closeTrace(writer, err);
        return 0;
    }

    /** {@code --replay}: a recorded trace, paced. */
    int replay(UplinkConfig config, PrintWriter err) throws Exception {
        ReplaySpeed pace;
        try {
            pace = ReplaySpeed.parse(cmd.speed);
        } catch (IllegalArgumentException e) {
            return cmd.usage(err, "--speed: " + e.getMessage());
        }
        if (!Files.isReadable(cmd.source.replay)) {
            err.println("--replay: cannot read " + cmd.source.replay);
            err.flush();
            return 2;
        }
        Vertx vertx = Vertx.vertx();
        ReplayRunner runner = new ReplayRunner(vertx, cmd.source.replay, n -> config, pace, cmd.clock)
                .errorHandler(e -> {
                    err.println(e);
                    err.flush();
                });
        if (!cmd.keepBootIds) {
            runner.bootSuffix("replay-" + Long.toString(cmd.clock.getAsLong(), 36));
        }
        Thread hook = new Thread(() -> ProbeCommand.Stop.quietly(runner.close().mapEmpty(), vertx), "gpuwatch-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        err.println("probe: replaying " + cmd.source.replay + " at " + pace + " → " + ProbeCommand.gateways(config));
        err.flush();
        ReplayReport report = runner.run().toCompletionStage().toCompletableFuture().get();
        ProbeCommand.unhook(hook);
        err.println(report.summary());
        err.flush();
        ProbeCommand.Stop.quietly(Future.succeededFuture(), vertx);
        return report.complete() ? 0 : 1;
    }
}
