package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.ack.Acknowledgements;
import io.gpuwatch.gateway.ack.PagerHook;
import io.gpuwatch.gateway.auth.TokenFile;
import io.gpuwatch.gateway.backtest.RecentFrames;
import io.gpuwatch.gateway.capacity.UsageKeeper;
import io.gpuwatch.gateway.cluster.Cluster;
import io.gpuwatch.gateway.coverage.CoverageBook;
import io.gpuwatch.gateway.delivery.Dispatcher;
import io.gpuwatch.gateway.digest.Digests;
import io.gpuwatch.gateway.eval.Evaluator;
import io.gpuwatch.gateway.ingest.ProbeEndpoint;
import io.gpuwatch.gateway.ledger.AlertLedger;
import io.gpuwatch.gateway.reload.RuleReloader;
import io.gpuwatch.gateway.schedule.Roster;
import io.gpuwatch.gateway.state.FleetState;
import io.gpuwatch.gateway.store.AsyncStore;
import io.gpuwatch.gateway.store.Escalation;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.rules.RuleSet;

import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * What the HTTP API reads and changes, as the gateway hands it over: the API depends on this, never on the
 * gateway itself, so the gateway can mount the API without an import cycle. Called on the gateway's event loop.
 */
public interface ApiHost {
    /** True once the gateway takes probes. */
    boolean ready();

    AlertLedger ledger();

    Acknowledgements acknowledgements();

    Dispatcher dispatcher();

    /** The receivers notifications go to, in the order given. */
    List<Receiver> receivers();

    /** The receivers whose paging service may report acknowledgements, with the secret that proves it. */
    List<PagerHook> pagerHooks();

    Optional<Digests> digests();

    Optional<RuleReloader> reloader();

    Evaluator evaluator();

    /** The rule set running now. */
    RuleSet rules();

    ProbeEndpoint probes();

    FleetState fleet();

    /** Which signals arrive from the fleet ({@code GET /api/v1/coverage}). */
    CoverageBook coverage();

    /** The usage history behind the capacity report, when the gateway keeps one (it runs on a data directory). */
    default Optional<UsageKeeper> usage() {
        return Optional.empty();
    }

    /** The store, when the gateway runs on a data directory and has opened it. */
    Optional<AsyncStore> store();

    /**
     * The files the configuration in force was read from: rule files and directories, then the alerting file (its
     * receivers and routing); empty for a gateway given its rules and routing in code.
     */
    List<Path> configFiles();

    /** The people and on-call schedules, empty when the gateway was given none. */
    Roster roster();

    /** Where the escalation of the live alert {@code fingerprint} stands on this gateway, if it escalates it. */
    default Optional<Escalation> escalation(String fingerprint) {
        return Optional.empty();
    }

    /** The cluster the gateway is one of, if any. */
    Optional<Cluster> cluster();

    InstantSource clock();

    /** The probe token entry matching {@code bearer} (null or unknown: empty), for {@code POST /v1/sched}. */
    Optional<TokenFile.Entry> probeToken(String bearer);

    /** Takes a {@code sched} frame relayed by {@code node} as one from a probe connection; false while stopping. */
    boolean sched(String node, Sched frame);
    /** The frames of the last hour (or as many as fit its budget), for rule previews. */
    RecentFrames recentFrames();
}
