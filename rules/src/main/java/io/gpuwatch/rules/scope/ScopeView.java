package io.gpuwatch.rules.scope;

import java.util.List;
import java.util.Map;

/**
 * What a rule may read about one scope instance (one card, one node) at the moment it is evaluated.
 * The gateway implements it over its windows; tests and the backtester implement it over their own data.
 * Implementations are read on one thread at a time and must not allocate on the steady path where avoidable.
 */
public interface ScopeView {
    /** Evaluation time, epoch milliseconds, from the caller's injected clock. */
    long now();

    /**
     * A label of the scope, or null when it has none. Keys: {@code node}, {@code card.uuid}, {@code card.name},
     * {@code card.index}, {@code task}, {@code owner}, {@code business}, {@code queue}, and node labels from
     * hello as {@code labels.<key>} (e.g. {@code labels.cluster}).
     */
    String label(String key);

    /**
     * The labels that identify this instance, for fingerprints: card scope node and uuid, node scope node, task
     * scope task (and business when known), business scope business, queue scope queue.
     */
    Map<String, String> identity();

    /**
     * Labels a router needs that do not identify the instance, put on its alerts but left out of fingerprints:
     * the node's labels from its hello on node and card alerts, and a card's {@code task}, {@code owner} and
     * {@code business}. Read only when an alert changes state, so it may allocate.
     */
    default Map<String, String> context() {
        return Map.of();
    }

    /** The window over the series with this id (see {@code RuleSet.series()}); an empty series when no data. */
    Series series(int seriesId);

    /**
     * A mark of how far what {@code reads} covers has changed: it grows whenever a series named there takes a
     * different value (or a sample rewrites or arrives behind another), an event is logged, or the instance's cards
     * change, and equal marks mean none of that happened in between. {@link Long#MIN_VALUE} (the default) where the
     * scope keeps no marks: its rules are evaluated every time.
     */
    default long changeMark(Reads reads) {
        return Long.MIN_VALUE;
    }

    /**
     * A mark that grows whenever a sample of the instance rewrites or arrives behind another, or its cards change
     * (a hello, a restore): the only ways, besides new samples, in which a window's extremes and shares can move.
     * A condition that {@link Series#sampleKeptUntil} or {@link Series#shareBelowUntil} shows false until some
     * instant sleeps until then while this mark stays. {@link Long#MIN_VALUE} (the default) where the scope keeps
     * no such mark: its rules do not sleep that way.
     */
    default long quietMark() {
        return Long.MIN_VALUE;
    }

    /** Events of this scope of {@code kind} (and {@code code} when {@code code >= 0}) in the last {@code windowMs}. */
    int countEvents(String kind, int code, long windowMs);

    /** The distinct codes (xid numbers; kinds when {@code kind} is null) of matching events, ascending. */
    List<String> distinctEvents(String kind, int code, long windowMs);

    /** Milliseconds since the last frame of the node this scope belongs to (0 while it reports). */
    long silentForMs();

    /** True when some process runs on the card (card scope) or on any card of the node (node scope). */
    boolean allocated();

    /**
     * A figure of what is normal for the metric of raw series {@code seriesId} in this scope's business, learned
     * per business at {@link #now()}: card scope uses the card's {@code business} label, node scope the business
     * of most of its cards, task and business scope their own business. {@code k} counts standard deviations for
     * UPPER and LOWER; ZSCORE measures the series' latest value. NaN without a business or without history, so
     * every comparison on it is false. Must not allocate on the steady path. Scopes without a business keep this
     * default; {@link BaselineStat#of(double, double, double, double)} computes a figure from mean and std.
     */
    default double baseline(int seriesId, BaselineStat stat, double k) {
        return Double.NaN;
    }

    /**
     * {@code stat} of this instance's mean of series {@code seriesId} over the last {@code windowMs} against its
     * peers': in card scope the other cards of the card's task, in node scope the other nodes that run the task
     * most of the node's cards run (a node's figure is the mean over those cards). Computed once per instant for
     * the whole group ({@link PeerGroup}), not per reader. Scopes without peers keep this default: no peers
     * counted, every other figure NaN.
     */
    default double peers(int seriesId, long windowMs, PeerStat stat) {
        return stat.none();
    }

    /**
     * What one hour of this card costs, in the configured currency, for {@code costPerToken}; NaN where no price
     * is configured and for scopes other than card.
     */
    default double cardHourPrice() {
        return Double.NaN;
    }

    /**
     * Counts the periods of the scope's data: rules that use {@code consecutive} count one run step per period
     * instead of one per evaluation. -1 (the default) makes every evaluation a period; a queue counts its
     * scheduler reports, so "five consecutive periods" means five reports, however often the queue is evaluated.
     */
    default long period() {
        return -1;
    }

    /**
     * Node scope: how many cards the node's hello listed since it booted and lists no longer (a card that fell
     * off the bus and vanished from the driver's list); 0 for the other scopes and once the cards are back.
     */
    default int lostCards() {
        return 0;
    }

    /**
     * The member cards of a task or business now, each ready to be read at {@link #now()}, for
     * {@code count(cards where …)}; of a queue, the cards of the tasks its latest report lists (for its derived
     * metrics); empty for the other scopes.
     */
    default List<? extends ScopeView> members() {
        return List.of();
    }

    /**
     * Task and replica scope: the FLOPs one token costs the task's model (2·N served, 6·N trained), as the
     * scheduler's listing of the task declares it; NaN without a declared model and for the other scopes.
     */
    default double flopsPerToken() {
        return Double.NaN;
    }

    /** Task and replica scope: the FLOPs of one training sample where the task declares it; NaN otherwise. */
    default double flopsPerSample() {
        return Double.NaN;
    }

    /**
     * Task and replica scope: the sum of the peak dense FLOP/s of the member cards at the task's precision now;
     * NaN without cards, or while one of them is a model the gateway's peak table lacks.
     */
    default double peakFlops() {
        return Double.NaN;
    }

    /**
     * Task and business scope, for {@code requestedVsUsed}: cards computing now over the cards its scheduler
     * listings requested; NaN while nothing requested any.
     */
    default double requestedVsUsed() {
        return Double.NaN;
    }

    /** Task and business scope, for {@code memRequestedVsUsed}: device memory in use over memory requested. */
    default double memRequestedVsUsed() {
        return Double.NaN;
    }

    /**
     * Task and business scope: how many of its tasks (a task: of its own runs) ended in the last {@code windowMs}
     * as succeeded or failed, for {@code tasksEnded(w)}; cancelled and preempted ones are not counted.
     */
    default int tasksEnded(long windowMs) {
        return 0;
    }

    /** Of {@link #tasksEnded(long)}, the share that succeeded; NaN while none ended. */
    default double taskSuccessRate(long windowMs) {
        return Double.NaN;
    }
}
