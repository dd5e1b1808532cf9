package io.gpuwatch.gateway;

import io.gpuwatch.gateway.ack.Acknowledgements;
import io.gpuwatch.gateway.ack.PagerHook;
import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.alert.AlertLinks;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.backtest.RecentFrames;
import io.gpuwatch.gateway.baseline.BaselineKeeper;
import io.gpuwatch.gateway.capacity.UsageKeeper;
import io.gpuwatch.gateway.capacity.UsageSampler;
import io.gpuwatch.gateway.checkpoint.Checkpoint;
import io.gpuwatch.gateway.checkpoint.Evaluation;
import io.gpuwatch.gateway.checkpoint.EvaluationFile;
import io.gpuwatch.gateway.cluster.Cluster;
import io.gpuwatch.gateway.cluster.Replica;
import io.gpuwatch.gateway.cluster.SharedAlerts;
import io.gpuwatch.gateway.coverage.CoverageBook;
import io.gpuwatch.gateway.delivery.Delivery;
import io.gpuwatch.gateway.delivery.Dispatcher;
import io.gpuwatch.gateway.delivery.OutboxSender;
import io.gpuwatch.gateway.digest.Digests;
import io.gpuwatch.gateway.escalation.Escalations;
import io.gpuwatch.gateway.escalation.Escalator;
import io.gpuwatch.gateway.escalation.StepReceivers;
import io.gpuwatch.gateway.eval.Evaluator;
import io.gpuwatch.gateway.http.ApiAccess;
import io.gpuwatch.gateway.http.ApiHost;
import io.gpuwatch.gateway.http.ApiRoutes;
import io.gpuwatch.gateway.http.alertmanager.AlertmanagerApi;
import io.gpuwatch.gateway.ingest.FrameSink;
import io.gpuwatch.gateway.ingest.IngestCounters;
import io.gpuwatch.gateway.ingest.ProbeEndpoint;
import io.gpuwatch.gateway.ledger.AlertLedger;
import io.gpuwatch.gateway.ledger.MemoryLedger;
import io.gpuwatch.gateway.ledger.PersistentLedger;
import io.gpuwatch.gateway.reload.ReloadStatus;
import io.gpuwatch.gateway.reload.RuleFiles;
import io.gpuwatch.gateway.reload.RuleReloader;
import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.silence.Resolution;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.gateway.state.NodeImage;
import io.gpuwatch.gateway.state.NodeState;
import io.gpuwatch.gateway.state.ScopeImage;
import io.gpuwatch.gateway.store.AsyncStore;
import io.gpuwatch.gateway.store.AuditEntry;
import io.gpuwatch.gateway.store.Backoff;
import io.gpuwatch.gateway.store.Escalation;
import io.gpuwatch.gateway.store.StoreException;
import io.gpuwatch.gateway.tls.TlsFiles;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.AlertImage;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.Transition;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.ServerSSLOptions;
import io.vertx.ext.web.Router;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The gateway verticle: probe ingest, fleet state, rule evaluation, the alert ledger and delivery, all on this
 * verticle's event loop, so state needs no locks. Receivers run their own I/O asynchronously. Rules loaded
 * from files can be reloaded while it runs ({@link #reloader()}); a reload swaps them in one event-loop task.
 * With a data directory, the alert ledger, silences, acknowledgements and the outbox live in the store
 * {@code DIR/gpuwatch.mv.db}, so a gateway killed at any moment comes back with its live alerts, silences,
 * acknowledgements and pending notifications.
 */
public final class Gateway extends VerticleBase implements FrameSink, ApiHost {
    private static final Logger LOG = Logger.getLogger(Gateway.class.getName());
    private static final int HISTORY_LIMIT = 10_000;
    private static final Duration OUTBOX_POLL = Duration.ofSeconds(1);
    /** Nodes copied per event-loop turn for a checkpoint: some 2,000 cards, a few milliseconds. */
    private static final int CAPTURE_BATCH = 256;

    private final GatewayConfig config;
    private final Supplier<TokenFile> tokens;
    private final InstantSource clock;
    private final FleetState fleet = new FleetState();
    private final CoverageBook coverage = new CoverageBook(CoverageBook.DEFAULT_WINDOW_MS);
    private AlertLedger ledger;
    private final Dispatcher dispatcher;
    private final List<Receiver> receivers;
    private final Acknowledgements acknowledgements = new Acknowledgements();
    private List<PagerHook> pagerHooks = List.of();
    private ApiAccess access = ApiAccess.open();
    private RecentFrames recent = new RecentFrames(RecentFrames.DEFAULT_BUDGET_BYTES);
    private TlsFiles tls;
    private Path alertingFile;
    private Supplier<Roster> roster = () -> Roster.EMPTY;
    private Path rosterFile;
    private final RuleFiles ruleFiles;
    private volatile RuleSet rules;
    private RuleReloader reloader;
    private BaselineKeeper baselines;
    private Checkpoint checkpoint;
    private long shareTimer = -1;
    private boolean sharing;
    private Evaluator evaluator;
    private ProbeEndpoint probes;
    private HttpServer server;
    private AsyncStore store;
    private OutboxSender outbox;
    private Digests digests;
    private UsageKeeper.Settings historySettings = UsageKeeper.Settings.DEFAULTS;
    private UsageKeeper usage;
    private Cluster cluster;
    /** Nodes being taken over without their probe, so a second membership change does not start it again. */
    private final Set<String> adopting = new HashSet<>();
    private volatile boolean ready;
    /** Set once stopping has begun: probe frames are no longer taken. */
    private boolean draining;
    private long tickTimer = -1;
    private StepReceivers stepReceivers;
    private Escalator escalator;
    /** Set once the escalations were taken back from the store (or there is none): only then do they run. */
    private boolean escalating;

    /** A gateway running a fixed rule set, with nothing to reload. */
    public Gateway(GatewayConfig config, RuleSet rules, Supplier<TokenFile> tokens, List<Receiver> receivers,
                   InstantSource clock) {
        this(config, rules, RuleFiles.none(), tokens, receivers, clock);
    }

    /**
     * A gateway running {@code rules}, loaded from {@code ruleFiles}, which it reloads on request and on change;
     * every notification goes to every receiver at once.
     */
    public Gateway(GatewayConfig config, RuleSet rules, RuleFiles ruleFiles, Supplier<TokenFile> tokens,
                   List<Receiver> receivers, InstantSource clock) {
        this(config, rules, ruleFiles, tokens, receivers, null, clock);
    }

    /**
     * A gateway that routes, groups, silences and inhibits notifications as {@code routing} says (null: every
     * notification to every receiver at once).
     *
     * @throws IllegalArgumentException when the routing names a receiver that is not in {@code receivers}
     */
    public Gateway(GatewayConfig config, RuleSet rules, RuleFiles ruleFiles, Supplier<TokenFile> tokens,
                   List<Receiver> receivers, RoutingConfig routing, InstantSource clock) {
        this.config = config;
        // templates compiled here, before the event loop runs, so that no rule's first page compiles them
        this.rules = rules.prepareRendering();
        this.ruleFiles = ruleFiles;
        this.tokens = tokens;
        this.clock = clock;
        this.ledger = new MemoryLedger(HISTORY_LIMIT, links());
        this.receivers = List.copyOf(receivers);
        this.dispatcher = routing == null ? Dispatcher.broadcast(receivers, clock)
                : new Dispatcher(routing, receivers, clock);
    }

    @Override
    public Future<?> start() {
        evaluator = new Evaluator(fleet, rules, this::transition);
        if (!dispatcher.routing().escalationPolicies().isEmpty()) {
            escalator = new Escalator(dispatcher.routing().escalationPolicies(), roster, stepReceivers != null
                    ? stepReceivers : (name, mentions) -> receivers.stream().filter(r -> r.name().equals(name))
                    .findFirst(), clock);
        }
        probes = new ProbeEndpoint(vertx, config.ingest(), tokens, this, clock);
        Router router = Router.router(vertx);
        new ApiRoutes(this, access).mount(router, List.of(AlertmanagerApi.extension(this)));
        tickTimer = vertx.setPeriodic(config.tickMs(), id -> tick());
        Future<Void> watching = Future.succeededFuture();
        if (!ruleFiles.paths().isEmpty()) {
            reloader = new RuleReloader(context, ruleFiles, this::reload, clock, rules.rules().size());
            watching = reloader.watch();
        }
        // the transport's cap sits above the protocol limit so an oversized frame reaches the codec, which
        // answers with an error naming the size before closing with 1009
        int transportCap = ProbeEndpoint.transportCap(config.ingest());
        HttpServerOptions options = new HttpServerOptions()
                .setHost(config.host())
                .setMaxWebSocketFrameSize(transportCap)
                .setMaxWebSocketMessageSize(transportCap);
        if (tls != null) {
            options.setSsl(true).setKeyCertOptions(tls.options());
            // a renewed certificate is served to the next connection; one that does not load keeps the old one
            tls.onChange(next -> context.runOnContext(v -> {
                if (server != null) {
                    server.updateSSLOptions(new ServerSSLOptions().setKeyCertOptions(next))
                            .onFailure(e -> LOG.warning("the changed TLS files could not be loaded, so the old "
                                    + "certificate is still served: " + e.getMessage()));
                }
            }));
        }
        baselines = new BaselineKeeper(context, config.dataDir());
        Future<Void> restored = baselines.start(fleet.baselines());
        // an open API may only listen where nobody else can reach it; a name is looked up off the event loop
        Future<Void> allowed = vertx.executeBlocking(() -> access.refusal(config.host()))
                .compose(refusal -> refusal.<Future<Void>>map(r -> Future.failedFuture(new IllegalStateException(r)))
                        .orElseGet(Future::succeededFuture));
        Future<Void> joined = allowed.compose(v -> cluster == null ? Future.succeededFuture() : joinCluster())
                .onSuccess(v -> {
                    if (cluster != null && escalator != null) {
                        escalator.shareWith(cluster.escalations());
                    }
                });
        if (config.dataDir() != null) {
            checkpoint = new Checkpoint(context, config.dataDir(), this::evaluationNow);
            // a frame is acknowledged once the windows it went into are on disk: until then its probe keeps it,
            // so a kill loses no frame a clean run would have windowed
            probes.ackWhenDurable();
            checkpoint.onWindowsWritten(this::durable);
        }
        Future<Void> durable = joined.compose(v -> config.dataDir() == null ? shareState()
                : checkpoint.read().compose(this::leaveFresherToCluster).compose(held -> openStore(config.dataDir(), held)));
        return Future.all(watching, restored, durable).compose(v -> vertx.createHttpServer(options).requestHandler(request -> {
                            // with no WebSocket handler set, upgrade requests come here too, so the probe
                            // endpoint can refuse one with a plain 401 and its challenge
                            if (ProbeEndpoint.PATH.equals(request.path())) {
                                if (draining) {
                                    request.response().setStatusCode(503).end("gateway stopping\n");
                                    return;
                                }
                                probes.upgrade(request);
                            } else {
                                router.handle(request);
                            }
                        })
                        .listen(config.port()))
                .onSuccess(s -> {
                    server = s;
                    ready = true;
                    escalating = true;
                    if (checkpoint != null) {
                        checkpoint.start();
                    }
                    if (cluster != null) {
                        shareTimer = vertx.setTimer(Checkpoint.PERIOD_MS, id -> shareRound());
                    }
                    if (digests != null) {
                        digests.start(vertx, new Digests.Sources(() -> ledger, fleet, coverage));
                    }
                    if (store != null) {
                        // each gateway of a cluster writes the cards of the nodes it owns into its own store
                        usage = new UsageKeeper(vertx, store, new UsageSampler(fleet,
                                node -> cluster == null || cluster.owns(node), historySettings.resolutionMs()),
                                clock, historySettings, () -> fleet.pricing().currency());
                        usage.start();
                    }
                    LOG.info("gateway listening on " + config.host() + ":" + s.actualPort()
                            + (tls == null ? "" : " (TLS)") + " with "
                            + ReloadStatus.count(rules.rules().size()));
                })
                .onFailure(e -> closeStore());
    }

    /**
     * Opens the store, loads the silences and the acknowledgements of live alerts back, loads the live alerts
     * back into a persistent ledger, routes every due group through the
     * outbox and rebuilds the groups from the live alerts, and takes back the evaluation {@code held} in the
     * checkpoint, all before the first probe can connect, so nothing recovered is paged again unless the
     * notification log says it was never delivered.
     */
    private Future<Void> openStore(Path dir, Evaluation held) {
        return AsyncStore.open(vertx, dir.resolve("gpuwatch"), clock, Backoff.standard())
                .compose(opened -> {
                    store = opened;
                    // silences first: the recovery below flushes groups, which must not page what they mute
                    return opened.run(s -> s.silences().all());
                })
                .compose(silences -> {
                    silences.forEach(dispatcher.silences()::restore);
                    return store.run(s -> s.acks().inForce(s.alerts().live()));
                })
                .compose(acks -> {
                    acks.forEach(acknowledgements::record);
                    return shareState();
                })
                .compose(v -> store.run(s -> s.notificationLog().all()))
                .compose(log -> PersistentLedger.open(store, HISTORY_LIMIT, links())
                        .map(persistent -> Map.entry(persistent, log)))
                .map(opened -> {
                    PersistentLedger persistent = opened.getKey();
                    List<Receiver> sendsTo = new ArrayList<>(receivers);
                    if (escalator != null) {
                        sendsTo.addAll(escalator.receivers());
                    }
                    outbox = new OutboxSender(vertx, store, sendsTo, clock, OutboxSender.Settings.standard(null));
                    dispatcher.deliverThrough(cluster == null ? outbox : cluster.claimed(outbox));
                    ledger = persistent;
                    persistent.recover((live, ended) -> {
                        dispatcher.resume(live, ended, opened.getValue());
                        if (cluster != null) {
                            cluster.holding(live);
                        }
                    });
                    restoreEvaluation(held, persistent.live(), persistent.history());
                    for (Alert a : persistent.live()) {
                        String key = evaluator.instanceKey(a.rule(), a.labels());
                        if (key != null && evaluator.engine().state(a.rule(), key) == AlertState.FIRING) {
                            continue;
                        }
                        if (key != null && firedOnKeptWindows(held, a)
                                && evaluator.engine().restore(firingImage(a, key),
                                clock.millis() + Checkpoint.GRACE_MS)) {
                            continue;
                        }
                        // the checkpoint did not hold it; without a state the alert would never resolve
                        if (!evaluator.restore(a.rule(), a.labels(), a.activeSince())) {
                            LOG.warning("alert " + a.rule() + " " + a.labels() + " came back from the store, but its"
                                    + " rule is not loaded or its labels name no instance, so it stays live"
                                    + " (it resolves only if that rule comes back)");
                        }
                    }
                    outbox.start(OUTBOX_POLL);
                    return (Void) null;
                })
                .compose(v -> escalator == null ? Future.<Void>succeededFuture()
                        : escalator.recover(store, () -> outbox.poll()))
                // the store's message names the file and what to do about it; the CLI prints a root cause, which
                // would be H2's bare reason
                .recover(e -> Future.failedFuture(e instanceof StoreException ? new StoreException(e.getMessage()) : e));
    }

    /**
     * In a cluster, leaves out of the checkpoint {@code held} the nodes a peer has heard since and shared: while
     * this gateway was down a survivor took them over and their probes let go of the frames it acknowledged, which
     * this older checkpoint lacks. The takeover brings that newer evaluation when they are assigned here. Their
     * alerts stay: taken back as the checkpoint had them they resolve on their own terms, where an alert the
     * ledger alone brings back is held firing for its rule's longest window.
     */
    private Future<Evaluation> leaveFresherToCluster(Evaluation held) {
        if (cluster == null || held.nodes().isEmpty()) {
            return Future.succeededFuture(held);
        }
        List<Future<String>> newer = new ArrayList<>();
        for (NodeImage n : held.nodes()) {
            String origin = Cluster.EVALUATION + "[" + n.name() + "]";
            newer.add(cluster.evaluationOf(n.name()).compose(text -> text == null ? Future.succeededFuture(null)
                    : vertx.executeBlocking(() -> heardSince(EvaluationFile.decode(text, origin).evaluation(), n)
                            ? n.name() : null, false)));
        }
        return Future.all(newer).map(all -> {
            Set<String> gone = new HashSet<>();
            for (Future<String> f : newer) {
                if (f.result() != null) {
                    gone.add(f.result());
                }
            }
            if (!gone.isEmpty()) {
                LOG.info("left " + gone.size() + " of the checkpoint's " + held.nodes().size() + " nodes to the "
                        + "evaluation a peer shared after hearing them since: " + gone);
            }
            return held.withoutNodes(gone);
        }).recover(e -> {
            LOG.warning("could not compare the checkpoint with the cluster's evaluation, so it is taken as it is: "
                    + e.getMessage());
            return Future.succeededFuture(held);
        });
    }

    /**
     * Whether {@code shared} heard node {@code n} after the checkpoint's image of it: a peer that only adopted the
     * node and never heard it knows no more, and the checkpoint's own image keeps the discount of this gateway's
     * absence from the node's silence.
     */
    private static boolean heardSince(Evaluation shared, NodeImage n) {
        return shared.nodes().stream().anyMatch(s -> s.name().equals(n.name()) && s.lastFrameAt() > n.lastFrameAt());
    }

    /**
     * How far back a resolve of the ledger is taken back into the engine at a restart: beyond the oldest frame the
     * probes replay (the windows' checkpoint, 1–2 minutes apart at 50,000 cards) plus a long restart.
     */
    private static final long RESOLVED_KEPT_MS = 10 * 60_000;

    /**
     * Takes back the nodes, cards and pending and firing alerts of a checkpoint, before any probe connects: a
     * node silent since before the restart pages {@code node-silent} when a clean run would, a pending alert
     * fires at its original deadline. The ledger is written at every transition and the checkpoint up to
     * seconds later, so a firing alert the ledger no longer holds live is not taken back as firing. Every alert
     * the ledger resolved within {@link #RESOLVED_KEPT_MS} comes back resolved at that time, which the probes'
     * replay of what came before cannot undo, and does not fire again until its node has said hello or the grace
     * is over (its condition ended on data the windows may lack until then); one whose page was never stored
     * fires again if its condition still holds.
     */
    private void restoreEvaluation(Evaluation held, List<Alert> live, List<Alert> history) {
        if (held.nodes().isEmpty() && held.alerts().isEmpty() && held.scopes().isEmpty()) {
            return;
        }
        long now = clock.millis();
        int skippedWindows = 0;
        int cards = 0;
        // the gateway's own absence since the checkpoint is not the silence of a node that was talking then
        for (NodeImage n : held.nodes()) {
            skippedWindows += restoreNode(n, absence(n, held.at(), now));
            cards += n.cards().size();
        }
        for (ScopeImage s : held.scopes()) {
            skippedWindows += fleet.restore(s, now);
        }
        Set<String> firing = new HashSet<>();
        for (Alert a : live) {
            firing.add(a.rule() + "\n" + evaluator.instanceKey(a.rule(), a.labels()));
        }
        int alerts = 0;
        Set<String> taken = new HashSet<>();
        for (AlertImage a : held.alerts()) {
            String key = a.rule() + "\n" + a.instance();
            // a firing alert the ledger no longer holds live ended, or its page was never stored
            if (a.state() == AlertState.FIRING && !firing.contains(key)) {
                continue;
            }
            if (evaluator.engine().restore(a, now + Checkpoint.GRACE_MS)) {
                alerts++;
                taken.add(key);
            }
        }
        // an episode the ledger resolved lately, perhaps after the checkpoint the probes replay from: what they
        // re-send from before its resolve must not fire it again
        Map<String, Alert> resolved = new HashMap<>();
        for (Alert a : history) {
            String instance = evaluator.instanceKey(a.rule(), a.labels());
            if (instance != null && a.resolvedAt() >= now - RESOLVED_KEPT_MS) {
                resolved.merge(a.rule() + "\n" + instance, a, (x, y) -> x.resolvedAt() >= y.resolvedAt() ? x : y);
            }
        }
        for (Map.Entry<String, Alert> e : resolved.entrySet()) {
            Alert a = e.getValue();
            if (!taken.contains(e.getKey()) && !firing.contains(e.getKey())) {
                String instance = e.getKey().substring(e.getKey().indexOf('\n') + 1);
                evaluator.engine().restoreResolved(firingImage(a, instance), a.resolvedAt(),
                        now + Checkpoint.GRACE_MS);
            }
        }
        LOG.info("took back the evaluation of " + held.nodes().size() + " nodes, " + cards + " cards, "
                + held.scopes().size() + " tasks, replicas and queues and " + alerts
                + " pending or firing alerts from " + checkpoint.file() + ", as of " + (now - held.at())
                + " ms ago" + (skippedWindows == 0 ? "" : "; " + skippedWindows
                + " windows of series the rules no longer read as before start empty"));
    }

    /** The ledger's alert {@code a} as the engine's image of it firing on {@code instance}, its condition holding. */
    private static AlertImage firingImage(Alert a, String instance) {
        return new AlertImage(a.rule(), instance, AlertState.FIRING, a.activeSince(), -1, a.labels(),
                a.annotations().get("summary"), a.annotations().get("description"));
    }

    /**
     * Whether a live alert the checkpoint lacks fired on data the restart keeps: after the checkpoint was taken,
     * about a node it holds (or a task or queue, when it holds any), so its windows come back and the probes
     * re-send what followed, and the rules can end it on time. Otherwise its windows are lost and it is held
     * firing for its rule's longest window.
     */
    private static boolean firedOnKeptWindows(Evaluation held, Alert a) {
        if (a.activeSince() < held.at()) {
            return false;
        }
        String node = a.labels().get("node");
        return node != null ? held.nodes().stream().anyMatch(n -> n.name().equals(node))
                : !held.nodes().isEmpty() || !held.scopes().isEmpty();
    }

    /**
     * The evaluation as it is now, the windows too when {@code withWindows}, for the checkpoint and the cluster:
     * copied on the event loop {@value #CAPTURE_BATCH} nodes a turn, so frames keep flowing while a large fleet is
     * copied.
     */
    private Future<Evaluation> evaluationNow(boolean withWindows) {
        List<String> names = fleet.nodes().stream().map(NodeState::name).toList();
        Promise<Evaluation> done = Promise.promise();
        capture(names, 0, withWindows, new ArrayList<>(names.size()), done);
        return done.future();
    }

    private void capture(List<String> names, int from, boolean withWindows, List<NodeImage> into,
                         Promise<Evaluation> done) {
        int to = Math.min(names.size(), from + CAPTURE_BATCH);
        boolean caughtUp = probes.queuedSamples() == 0;
        for (int i = from; i < to; i++) {
            NodeImage n = fleet.image(names.get(i), withWindows, caughtUp);
            if (n != null) {
                into.add(n);
            }
        }
        if (to == names.size()) {
            // the tasks, replicas and queues last: their windows then hold at least what the nodes' heldSeq covers
            done.complete(new Evaluation(clock.millis(), into, evaluator.engine().images(),
                    withWindows ? fleet.scopeImages() : List.of()));
        } else {
            context.runOnContext(v -> capture(names, to, withWindows, into, done));
        }
    }

    /**
     * Makes this gateway one of {@code cluster}'s, before it is deployed on {@code cluster.vertx()}: it serves
     * the nodes it owns, redirects the others' probes, and sends what no peer has sent (docs/operations.md).
     */
    public Gateway clustered(Cluster cluster) {
        this.cluster = cluster;
        return this;
    }

    /** Redirects probes of nodes owned elsewhere and claims each send; an ownership change lets those go. */
    private Future<Void> joinCluster() {
        probes.clustered(cluster::redirectFor, this::adopt);
        return cluster.start(() -> {
            probes.release(cluster::owns);
            forgetMoved();
            adoptOrphans();
        })
                .onSuccess(v -> dispatcher.deliverThrough(cluster.claimed(Delivery.DIRECT)));
    }

    /**
     * In a cluster, takes the peers' silences and acknowledgements into this gateway and its store, shares its own
     * that they lack, and keeps both in step from now on; a peer's silence is applied to the groups at once.
     */
    private Future<Void> shareState() {
        if (cluster == null) {
            return Future.succeededFuture();
        }
        return cluster.shareWith(new Replica(dispatcher.silences(), acknowledgements, this::store, dispatcher::tick));
    }

    /**
     * A node this gateway has just taken over brings back the alerts its former owner shared: the engine takes
     * them as firing, so they resolve when their condition ends, and the ledger holds them, so they are no news;
     * their acknowledgements come with them.
     */
    private Future<Void> adopt(String node) {
        return cluster.alertsOf(node).compose(shared -> cluster.takeAcks(shared.stream()
                .map(SharedAlerts.Entry::fingerprint).toList()).map(shared)).map(shared -> {
            Set<String> live = new HashSet<>();
            ledger.live().forEach(a -> live.add(a.fingerprint()));
            for (SharedAlerts.Entry a : shared) {
                Rule rule = rules.rules().stream().filter(r -> r.name().equals(a.rule())).findFirst().orElse(null);
                if (rule == null || live.contains(a.fingerprint())
                        || !evaluator.restore(a.rule(), a.labels(), a.activeSince())) {
                    continue;
                }
                // it fired on the former owner, which shared when (its startsAt): the alert keeps that time, so
                // a receiver sees the same alert, not a new one starting at the takeover
                transition(new Transition(rule, a.labels(), AlertState.PENDING, AlertState.FIRING, a.activeSince(),
                        a.activeSince(), a.annotations().get("summary"), a.annotations().get("description")));
            }
            return (Void) null;
        }).compose(v -> cluster.evaluationOf(node)).map(text -> {
            adoptEvaluation(node, text);
            return (Void) null;
        }).recover(e -> {
            // the node is served all the same; its alerts fire again if their condition still holds
            LOG.warning("could not read node " + node + "'s alerts from the cluster: " + e.getMessage());
            return Future.succeededFuture();
        });
    }

    private AlertLinks links() {
        return new AlertLinks(config.externalUrl(), config.runbookBaseUrl());
    }

    /** Shares the evaluation, then waits {@link Checkpoint#PERIOD_MS}, or longer to stay within its duty cycle. */
    private void shareRound() {
        long started = System.nanoTime();
        shareEvaluation().onComplete(r -> {
            if (ready) {
                long tookMs = (System.nanoTime() - started) / 1_000_000;
                long waitMs = Math.max(Checkpoint.PERIOD_MS, (long) (tookMs * (1 / Checkpoint.DUTY - 1)));
                shareTimer = vertx.setTimer(waitMs, id -> shareRound());
            }
        });
    }

    /**
     * Shares what this gateway evaluates of each node it owns with the cluster ({@link Cluster#EVALUATION}), so
     * that the gateway taking a node over when this one dies goes on from there: captured here, encoded on a
     * worker, one round at a time. Completes when every node's part is in the map (or failed, logged).
     */
    public Future<Void> shareEvaluation() {
        if (cluster == null || sharing) {
            return Future.succeededFuture();
        }
        sharing = true;
        return evaluationNow(true).compose(now -> vertx.executeBlocking(() -> {
            Map<String, String> parts = new LinkedHashMap<>();
            for (NodeImage n : now.nodes()) {
                parts.put(n.name(), EvaluationFile.encode(now.part(n)));
            }
            return parts;
        }, false)).compose(parts -> {
            List<Future<Void>> puts = new ArrayList<>();
            parts.forEach((node, text) -> {
                if (cluster.owns(node)) {
                    puts.add(cluster.shareEvaluation(node, text));
                }
            });
            return Future.all(puts).<Void>mapEmpty();
        }).onComplete(r -> {
            sharing = false;
            if (r.failed()) {
                LOG.warning("could not share the evaluation with the cluster: " + r.cause().getMessage());
            }
        });
    }

    /**
     * Lets go of the nodes the cluster now assigns to a peer: kept here, a node whose probe has moved would look
     * silent, fire {@code node-silent} unseen, and page falsely when the ring gives it back or a restart takes it
     * from the checkpoint. The peer goes on from the evaluation this gateway shared.
     */
    private void forgetMoved() {
        List<String> moved = fleet.nodes().stream().map(NodeState::name).filter(n -> !cluster.owns(n)).toList();
        moved.forEach(evaluator::forget);
        if (!moved.isEmpty()) {
            LOG.info("left " + moved.size() + " nodes to the gateways the cluster now assigns them: " + moved);
        }
    }

    /**
     * Takes over the nodes the cluster now assigns here that no probe has brought: a node whose probe is not
     * connected (silent when its owner died, or moved here when members changed) has no one to say hello, and
     * only the shared evaluation still knows it, so {@code node-silent} would page nowhere.
     */
    private void adoptOrphans() {
        cluster.sharedNodes().onSuccess(nodes -> context.runOnContext(v -> {
            for (String node : nodes) {
                if (cluster.owns(node) && fleet.node(node) == null && adopting.add(node)) {
                    adopt(node).onComplete(r -> adopting.remove(node));
                }
            }
        })).onFailure(e -> LOG.warning("could not list the nodes the cluster shares: " + e.getMessage()));
    }

    /**
     * Takes back the evaluation of {@code node} its former owner shared ({@code text}, null when none): its cards,
     * windows, events and when it was last heard, unless this gateway knows the node already, and its pending
     * alerts and the precise state of its firing ones (the shared alerts made them firing just before).
     */
    private void adoptEvaluation(String node, String text) {
        if (text == null) {
            return;
        }
        EvaluationFile.Loaded loaded = EvaluationFile.decode(text, Cluster.EVALUATION + "[" + node + "]");
        loaded.problems().forEach(LOG::warning);
        long graceUntil = clock.millis() + Checkpoint.GRACE_MS;
        for (NodeImage n : loaded.evaluation().nodes()) {
            if (n.name().equals(node)) {
                restoreNode(n, absence(n, loaded.evaluation().at(), clock.millis()));
            }
        }
        for (AlertImage a : loaded.evaluation().alerts()) {
            boolean firing = evaluator.engine().state(a.rule(), a.instance()) == AlertState.FIRING;
            // a firing alert the shared alerts no longer hold has resolved meanwhile
            if (a.state() == AlertState.PENDING ? !firing : firing) {
                evaluator.engine().restore(a, graceUntil);
            }
        }
    }

    /**
     * Takes back a node a checkpoint or a former owner held, unless the fleet knows it already, and where its
     * probe's stream stood, so the probe resumes after the samples the windows hold and a replayed event the
     * event log holds is not counted twice. Returns how many card windows could not be taken.
     */
    private int restoreNode(NodeImage n, long absentMs) {
        if (fleet.node(n.name()) != null) {
            return 0;
        }
        int skipped = fleet.restore(n, absentMs, clock.millis() + Checkpoint.GRACE_MS);
        if (n.hello() != null) {
            probes.resume(n.name(), n.hello().bootId(), n.heldSeq(), n.eventSeq());
        }
        return skipped;
    }

    /**
     * How much of a restored node's silence is the gateway's own absence, from the evaluation's instant {@code at}
     * until {@code now}: all of it for a node heard within {@link Checkpoint#TALKING_MS} before {@code at}, none for
     * one already silent then, whose silence the gateway saw begin.
     */
    private static long absence(NodeImage n, long at, long now) {
        return at - n.lastFrameAt() <= Checkpoint.TALKING_MS ? now - at : 0;
    }

    /** The windows of {@code written} are on disk: its nodes' probes may let go of the frames they came from. */
    private void durable(Evaluation written) {
        for (NodeImage n : written.nodes()) {
            if (n.hello() != null) {
                probes.durable(n.name(), n.hello().bootId(), n.heldSeq());
            }
        }
    }

    /** A gateway that did not start lets go of its store, so a retry in this process can open it again. */
    private void closeStore() {
        if (outbox != null) {
            outbox.stop();
        }
        if (store != null) {
            store.close();
        }
    }

    /**
     * Stops: first {@link #flushPending sends what is pending}, within {@link GatewayConfig#shutdownTimeout()},
     * then lets go of everything else.
     */
    @Override
    public Future<?> stop() {
        ready = false;
        Future<Void> flushed = evaluator == null ? Future.succeededFuture() : flushPending();
        return flushed.compose(v -> release());
    }

    /**
     * What a stopping gateway does last: takes no more probe frames, evaluates once more (so a condition that
     * ended is resolved), sends every group that changed without waiting for its timers, and waits for the sends
     * for at most the shutdown timeout. What could not be sent stays in the outbox for the next start; without
     * a store it is lost. Either is logged with its count.
     */
    private Future<Void> flushPending() {
        draining = true;
        if (tickTimer >= 0) {
            vertx.cancelTimer(tickTimer);
        }
        evaluator.tick(clock.millis(), config.tickMs());
        Duration within = config.shutdownTimeout();
        long started = System.nanoTime();
        Promise<Void> handedOn = Promise.promise();
        long timeout = vertx.setTimer(Math.max(1, within.toMillis()), id -> handedOn.tryComplete());
        dispatcher.flushNow().onComplete(ar -> handedOn.tryComplete());
        return handedOn.future().compose(v -> {
            vertx.cancelTimer(timeout);
            int unsettled = dispatcher.unsettled();
            if (outbox == null) {
                if (unsettled > 0) {
                    LOG.warning(unsettled + " notifications were not delivered within the shutdown timeout of "
                            + within.toMillis() + " ms and are lost; a gateway with a data directory keeps them "
                            + "for its next start");
                }
                return Future.succeededFuture();
            }
            Duration left = within.minusNanos(System.nanoTime() - started);
            return outbox.drain(left.isNegative() ? Duration.ZERO : left).map(pending -> {
                if (pending > 0) {
                    LOG.warning(pending + " notifications could not be sent within the shutdown timeout of "
                            + within.toMillis() + " ms; they stay in the outbox and are sent at the next start");
                }
                return (Void) null;
            });
        }).recover(e -> {
            LOG.warning("sending what was pending at shutdown failed: " + e.getMessage());
            return Future.succeededFuture();
        });
    }

    private Future<Void> release() {
        if (digests != null) {
            digests.stop();
        }
        if (shareTimer >= 0) {
            vertx.cancelTimer(shareTimer);
        }
        if (cluster != null) {
            cluster.stop();
        }
        if (reloader != null) {
            reloader.stop();
        }
        if (outbox != null) {
            outbox.stop();
        }
        Future<Void> saved = baselines == null ? Future.succeededFuture() : baselines.stop(fleet.baselines());
        if (checkpoint != null) {
            saved = saved.compose(v -> checkpoint.stop());
        }
        if (usage != null) {
            // the history's last minutes, before the store closes; a failure is logged and does not hold the stop
            saved = saved.compose(v -> usage.stop().recover(e -> Future.succeededFuture()));
        }
        return saved.compose(v -> server == null ? Future.succeededFuture() : server.close())
                .compose(v -> store == null ? Future.succeededFuture() : store.close());
    }

    /**
     * One periodic pass at the clock's now: every rule on the tick, then due groups; call on the event loop
     * ({@link #onEventLoop}).
     */
    public void tick() {
        evaluator.tick(clock.millis(), config.tickMs());
        dispatcher.tick();
        escalate();
    }

    /**
     * Moves the escalations on: each firing alert this gateway speaks for whose route names a policy; an
     * acknowledgement holds it, and so does a silence or an inhibition, which mute its pages as they mute its
     * notifications.
     */
    private void escalate() {
        if (escalator == null || !escalating || draining) {
            return;
        }
        Instant now = clock.instant();
        List<Escalations.Candidate> live = new ArrayList<>();
        Set<String> firing = new HashSet<>();
        for (Alert a : ledger.live()) {
            firing.add(a.fingerprint());
            Optional<String> policy = dispatcher.routing().escalation(a.labels());
            if (policy.isEmpty()) {
                continue;
            }
            Notification n = ledger.notification(a);
            if (cluster != null && !cluster.speaksFor(n)) {
                continue;
            }
            boolean held = acknowledgements.of(a.fingerprint(), a.activeSince()).isPresent()
                    || !dispatcher.silences().silenced(a.labels(), now).isEmpty()
                    || !dispatcher.inhibitedBy(a.fingerprint(), a.labels()).isEmpty();
            live.add(new Escalations.Candidate(n, a.activeSince(), policy.get(), held));
        }
        escalator.tick(live, firing::contains);
    }

    /**
     * Makes the receivers escalation steps page through, with each step's mentions (docs/oncall.md,
     * Escalation); call before deploying. Without it a step pages through the configured receiver as it is.
     */
    public Gateway stepReceivers(StepReceivers make) {
        this.stepReceivers = make;
        return this;
    }

    @Override
    public Optional<Escalation> escalation(String fingerprint) {
        return escalator == null ? Optional.empty() : escalator.of(fingerprint);
    }

    /**
     * Runs {@code task} on the gateway's event loop, between two frames, and completes with its result: for tools
     * and tests that drive a gateway in-process (frames through {@link #hello}/{@link #frame}, {@link #tick}).
     */
    public <T> Future<T> onEventLoop(Supplier<T> task) {
        Promise<T> done = Promise.promise();
        context.runOnContext(v -> {
            try {
                done.complete(task.get());
            } catch (RuntimeException e) {
                done.fail(e);
            }
        });
        return done.future();
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
        if (draining) {
            return;
        }
        recent.hello(hello);
        fleet.hello(hello, clock.millis());
        evaluator.heardAgain(hello.node());
        changed();
    }

    @Override
    public void frame(String node, Frame frame) {
        if (draining) {
            return;
        }
        long now = clock.millis();
        recent.add(node, frame);
        coverage.frame(node, frame, now);
        if (frame instanceof Sample s) {
            evaluator.sample(node, s, now, config.tickMs());
        } else if (frame instanceof Event e) {
            evaluator.event(node, e, now);
            changed();
        } else if (frame instanceof App a) {
            evaluator.app(node, a, now);
        } else if (frame instanceof Sched s) {
            evaluator.sched(node, s, now);
        } else {
            fleet.heard(node, now);
        }
        if (!(frame instanceof Sample) && !(frame instanceof Event)) {
            fleet.taken(node, frame.seq());
        }
    }

    @Override
    public Optional<TokenFile.Entry> probeToken(String bearer) {
        TokenFile known = tokens.get();
        return bearer == null || known == null ? Optional.empty() : known.find(bearer);
    }

    @Override
    public boolean sched(String node, Sched frame) {
        if (draining) {
            return false;
        }
        frame(node, frame);
        return true;
    }

    @Override
    public void shed(String node, long at, long seq) {
        if (draining) {
            return;
        }
        fleet.shed(node, at, seq);
    }

    @Override
    public void disconnected(String node) {
        fleet.disconnected(node);
    }

    /**
     * Swaps in a new rule set on the event loop, between two frames: alerts of rules that stay keep their state
     * (a firing one sends nothing new), firing alerts of rules that are gone resolve, windows of series that
     * stay keep their data.
     */
    public Future<Void> reload(RuleSet next) {
        Promise<Void> done = Promise.promise();
        context.runOnContext(v -> {
            evaluator.replace(next, clock.millis());
            rules = next;
            done.complete();
        });
        return done.future();
    }

    /** Reloads from the rule files; empty for a gateway started with a fixed rule set. */
    public Optional<RuleReloader> reloader() {
        return Optional.ofNullable(reloader);
    }

    /** A change the checkpoint should hold soon: a node's hello, an event, an alert's transition. */
    private void changed() {
        if (checkpoint != null) {
            checkpoint.changed();
        }
    }

    private void transition(Transition t) {
        changed();
        ledger.apply(t, n -> {
            if (cluster != null) {
                cluster.record(n);
            }
            dispatcher.dispatch(n);
            if (n.status() == Notification.Status.RESOLVED) {
                endResolution(n.fingerprint());
            }
        });
    }

    /**
     * Ends the silences that a Resolve from chat made for alert {@code fingerprint}, now that its condition has
     * cleared, so its next episode pages (docs/oncall.md); stored with an audit entry and shared like any expiry.
     */
    private void endResolution(String fingerprint) {
        Instant now = clock.instant();
        for (Silence s : dispatcher.silences().list(Silence.State.ACTIVE, now)) {
            if (Resolution.awaited(s).filter(fingerprint::equals).isEmpty()
                    || !dispatcher.silences().expire(s.id(), now)) {
                continue;
            }
            Silence expired = dispatcher.silences().get(s.id()).orElseThrow();
            AuditEntry audit = new AuditEntry(0, now, "gateway", "silence.expire", s.id(), "alert " + fingerprint
                    + " resolved", "");
            Future<Void> kept = store == null ? Future.succeededFuture()
                    : store.run(st -> {
                        st.silences().save(expired);
                        return st.audit().add(audit);
                    }).mapEmpty();
            kept.onSuccess(v -> {
                if (cluster != null) {
                    cluster.share(expired);
                }
            }).onFailure(e -> LOG.warning("the end of silence " + s.id() + " (alert " + fingerprint + " resolved) "
                    + "could not be stored; it ends here, and again after a restart at its end time: "
                    + e.getMessage()));
        }
    }

    public FleetState fleet() {
        return fleet;
    }

    @Override
    public CoverageBook coverage() {
        return coverage;
    }

    public AlertLedger ledger() {
        return ledger;
    }

    public Dispatcher dispatcher() {
        return dispatcher;
    }

    /** The receivers notifications go to, in the order given. */
    public List<Receiver> receivers() {
        return receivers;
    }

    /** The cluster this gateway is one of, if any. */
    public Optional<Cluster> cluster() {
        return Optional.ofNullable(cluster);
    }

    /** What keeps the evaluation across restarts, when this gateway runs on a data directory. */
    public Optional<Checkpoint> checkpoint() {
        return Optional.ofNullable(checkpoint);
    }

    /** The store, when this gateway runs on a data directory and has opened it. */
    public Optional<AsyncStore> store() {
        return Optional.ofNullable(store);
    }

    /** Sends {@code digests} on their schedules once started (docs/alerting.md, Digests); call before deploying. */
    public Gateway digests(Digests digests) {
        this.digests = digests;
        return this;
    }

    /**
     * Keeps the usage history for the capacity report at {@code settings}' resolution and retention (default: one
     * minute for 30 days), when the gateway runs on a data directory; call before deploying.
     */
    public Gateway usageHistory(UsageKeeper.Settings settings) {
        this.historySettings = java.util.Objects.requireNonNull(settings, "settings");
        return this;
    }

    @Override
    public Optional<UsageKeeper> usage() {
        return Optional.ofNullable(usage);
    }

    /** The digests this gateway sends, if it was given any. */
    public Optional<Digests> digests() {
        return Optional.ofNullable(digests);
    }

    /**
     * Takes acknowledgements from the paging services of {@code hooks} at their webhook routes
     * (docs/receivers-paging.md); call before deploying.
     */
    public Gateway pagerHooks(List<PagerHook> hooks) {
        this.pagerHooks = List.copyOf(hooks);
        return this;
    }

    /**
     * Opens the HTTP API to callers as {@code access} says (docs/api.md, Access); call before deploying. Without
     * it the API is open, which the gateway allows on a loopback address only.
     */
    public Gateway access(ApiAccess access) {
        this.access = access;
        return this;
    }

    /**
     * Keeps about {@code bytes} of recent frames for rule previews (0: none); call before deploying. Every frame
     * kept lives on past the young collection it would have died in, so a large fleet may want less.
     */
    public Gateway previewMemory(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("the preview's memory must not be negative, got " + bytes);
        }
        this.recent = new RecentFrames(bytes);
        return this;
    }

    /** The frames of the last hour a rule preview replays; read on the event loop. */
    @Override
    public RecentFrames recentFrames() {
        return recent;
    }

    /**
     * Names the alerting file the receivers and routing were read from, so the status API's configuration hash
     * covers it; call before deploying.
     */
    public Gateway alertingFile(Path file) {
        this.alertingFile = file;
        return this;
    }

    /**
     * Answers who is on call from {@code roster}, read from {@code file} (null for a roster given in code), whose
     * hash the status API then covers too (docs/oncall.md); call before deploying.
     */
    public Gateway roster(Roster roster, Path file) {
        return roster(() -> roster, file);
    }

    /**
     * As {@link #roster(Roster, Path)}, answering from the roster {@code roster} holds at each request: the on-call
     * file read again when it changes or on SIGHUP ({@code WatchedFile}).
     */
    public Gateway roster(Supplier<Roster> roster, Path file) {
        this.roster = roster;
        this.rosterFile = file;
        return this;
    }

    @Override
    public Roster roster() {
        return roster.get();
    }

    @Override
    public List<Path> configFiles() {
        List<Path> files = new ArrayList<>(ruleFiles.paths());
        if (alertingFile != null) {
            files.add(alertingFile);
        }
        if (rosterFile != null) {
            files.add(rosterFile);
        }
        return files;
    }

    /** Serves HTTPS and WSS with the certificate and key of {@code tls}; call before deploying. */
    public Gateway tls(TlsFiles tls) {
        this.tls = tls;
        return this;
    }

    /** The receivers whose paging service may report acknowledgements, with the secret that proves it. */
    public List<PagerHook> pagerHooks() {
        return pagerHooks;
    }

    /** The acknowledgements of live alerts. */
    public Acknowledgements acknowledgements() {
        return acknowledgements;
    }

    /** The clock this gateway reads time from. */
    public InstantSource clock() {
        return clock;
    }

    public ProbeEndpoint probes() {
        return probes;
    }

    public Evaluator evaluator() {
        return evaluator;
    }

    /** The rule set running now. */
    public RuleSet rules() {
        return rules;
    }
}
