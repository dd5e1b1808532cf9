package io.gpuwatch.gateway;

import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.delivery.Dispatcher;
import io.gpuwatch.gateway.eval.Evaluator;
import io.gpuwatch.gateway.http.ApiRoutes;
import io.gpuwatch.gateway.ingest.FrameSink;
import io.gpuwatch.gateway.ingest.IngestCounters;
import io.gpuwatch.gateway.ingest.ProbeEndpoint;
import io.gpuwatch.gateway.ledger.AlertLedger;
import io.gpuwatch.gateway.ledger.MemoryLedger;
import io.gpuwatch.gateway.state.CardState;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.Transition;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;

import java.time.InstantSource;
import java.util.List;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The gateway verticle: probe ingest, fleet state, rule evaluation, the alert ledger and delivery, all on this
 * verticle's event loop, so state needs no locks. Receivers run their own I/O asynchronously.
 */
public final class Gateway extends VerticleBase implements FrameSink {
    private static final Logger LOG = Logger.getLogger(Gateway.class.getName());

    private final GatewayConfig config;
    private final Supplier<TokenFile> tokens;
    private final InstantSource clock;
    private final FleetState fleet = new FleetState();
    private final AlertLedger ledger;
    private final Dispatcher dispatcher;
    private final RuleSet rules;
    private Evaluator evaluator;
    private ProbeEndpoint probes;
    private HttpServer server;
    private volatile boolean ready;

    public Gateway(GatewayConfig config, RuleSet rules, Supplier<TokenFile> tokens, List<Receiver> receivers,
                   InstantSource clock) {
        this.config = config;
        this.rules = rules;
        this.tokens = tokens;
        this.clock = clock;
        this.ledger = new MemoryLedger(10_000, config.externalUrl());
        this.dispatcher = new Dispatcher(receivers);
    }

    @Override
    public Future<?> start() {
        evaluator = new Evaluator(fleet, rules, this::transition);
        probes = new ProbeEndpoint(vertx, config.ingest(), tokens, this, clock);
        Router router = Router.router(vertx);
        router.get("/v1/probe").handler(ctx -> probes.handle(ctx.request()));
        new ApiRoutes(this).mount(router);
        vertx.setPeriodic(config.tickMs(), id -> evaluator.tick(clock.millis(), config.tickMs()));
        // the transport's cap sits above the protocol limit so an oversized frame reaches the codec, which
        // answers with an error naming the size before closing with 1009
        int transportCap = (int) Math.min(Integer.MAX_VALUE, 4L * config.ingest().maxFrameBytes());
        HttpServerOptions options = new HttpServerOptions()
                .setHost(config.host())
                .setMaxWebSocketFrameSize(transportCap)
                .setMaxWebSocketMessageSize(transportCap);
        return vertx.createHttpServer(options).requestHandler(router).listen(config.port()).onSuccess(s -> {
            server = s;
            ready = true;
            LOG.info("gateway listening on " + config.host() + ":" + s.actualPort() + " with "
                    + rules.rules().size() + " rules");
        });
    }

    @Override
    public Future<?> stop() {
        ready = false;
        return server == null ? Future.succeededFuture() : server.close();
    }

    /** The port actually bound, once started. */
    public int port() {
        return server.actualPort();
    }

    public boolean ready() {
        return ready;
    }

    /** A snapshot taken on the gateway's event loop, safe to call from any thread. */
    public Future<GatewayStats> stats() {
        Promise<GatewayStats> p = Promise.promise();
        context.runOnContext(v -> {
            IngestCounters c = probes.counters();
            p.complete(new GatewayStats(fleet.nodes().size(), probes.connectedNodes(), fleet.cardCount(),
                    fleet.retainedBytes(), c.frames.get(), c.samples.get(), c.cardReadings.get(), c.events.get(),
                    c.duplicates.get(), c.badFrames.get(), c.shedSamples.get(), evaluator.evaluations(),
                    dispatcher.sent(), dispatcher.failed(), ledger.live().size(), ledger.history().size()));
        });
        return p.future();
    }

    @Override
    public void hello(Hello hello) {
        fleet.hello(hello, clock.millis());
    }

    @Override
    public void frame(String node, Frame frame) {
        long now = clock.millis();
        if (frame instanceof Sample s) {
            fleet.sample(node, s, now, card -> evaluator.card(card, now));
        } else if (frame instanceof Event e) {
            CardState card = fleet.event(node, e, now);
            if (card != null) {
                evaluator.card(card, now);
            }
            evaluator.node(fleet.node(node), now);
        } else {
            fleet.heard(node, now);
        }
    }

    @Override
    public void disconnected(String node) {
        fleet.disconnected(node);
    }

    private void transition(Transition t) {
        ledger.apply(t, dispatcher::dispatch);
    }

    public FleetState fleet() {
        return fleet;
    }

    public AlertLedger ledger() {
        return ledger;
    }

    public Dispatcher dispatcher() {
        return dispatcher;
    }

    public ProbeEndpoint probes() {
        return probes;
    }

    public Evaluator evaluator() {
        return evaluator;
    }

    public RuleSet rules() {
        return rules;
    }
}
