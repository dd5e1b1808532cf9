package io.gpuwatch.gateway.state;

import io.gpuwatch.gateway.window.EventLog;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.rules.metric.SeriesSpec;
import io.gpuwatch.rules.scope.BaselineStat;
import io.gpuwatch.rules.scope.PeerStat;
import io.gpuwatch.rules.scope.Reads;
import io.gpuwatch.rules.scope.ScopeView;
import io.gpuwatch.rules.scope.Series;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** One node: its cards, its node-wide events and when it last spoke; read by node-scope rules. */
public final class NodeState implements ScopeView {
    private final String name;
    private final Map<String, String> identity;
    private final String instanceKey;
    private final Map<String, CardState> cards = new LinkedHashMap<>();
    private final EventLog events;
    private final FleetState fleet;
    private Map<String, String> labels = Map.of();
    private String bootId;
    /** The latest hello, kept for a checkpoint; null for a node restored without one. */
    private Hello hello;
    private long lastFrameAt;
    /**
     * For a node taken back from a checkpoint and not heard since: how long the gateway itself was away, which its
     * silence does not count until {@link #absentUntil} (the gateway cannot tell its own absence from the node's,
     * and the probes need a moment to reconnect); after that the silence counts whole.
     */
    private long absentMs;
    private long absentUntil;
    /**
     * The highest seq of this boot's samples windowed or shed: samples are taken in order, events and other frames
     * at once, so every frame up to it is held.
     */
    private long sampleSeq;
    /** The highest seq of this boot's events in the event logs. */
    private long eventSeq;
    /** The highest seq of any frame of this boot taken; samples below it may still wait in ingest's queue. */
    private long lastSeq;
    private boolean connected;
    private PooledSeries[] series = new PooledSeries[0];
    private long now;
    /** Cards a hello of this boot listed and a later one no longer does, by uuid. */
    private final Set<String> lost = new HashSet<>();
    /** The cards as a list for {@code cards where}, rebuilt on first use after the card set changed. */
    private List<CardState> members;
    /**
     * The card of each position of the samples read lately, with the uuid it came under: a probe lists its cards
     * in the same order every second and the trace reader reuses a uuid's String, so an identity check finds the
     * card without hashing and comparing the uuid. Cleared whenever a card leaves.
     */
    private String[] seenUuids = new String[0];
    private CardState[] seenCards = new CardState[0];
    /** Counts changes of the cards' attributions; {@link #mostCommon} recounts a label when it has moved. */
    private long attributions;
    /** The most common task, owner and business of the cards, and the count of changes each was found at. */
    private final String[] common = new String[3];
    private final long[] commonOf = {-1, -1, -1};
    /**
     * Counts what changed of the node and its cards for rules' change marks ({@link #changeMark}): each change
     * takes the next count (a card keeps the count its series last moved at); the latest event of the node or a
     * card, and the latest change of its cards, their windows or series as a whole.
     */
    private long changes;
    private long eventsMoved;
    private long cardsMoved;
    /**
     * Samples of its cards no sleeping rule could foresee (see {@link #quietMark}): at or behind a slot they already
     * had, outside what their unit promises, late, or resuming a silent series.
     */
    private long unforeseen;

    NodeState(FleetState fleet, String name, EventLog events) {
        this.fleet = fleet;
        this.name = name;
        this.events = events;
        this.identity = Map.of("node", name);
        // built once: engines look alerts up by it on every evaluation
        this.instanceKey = key(name);
    }

    public String name() {
        return name;
    }

    public String bootId() {
        return bootId;
    }

    /** The driver version its hello named, or null. */
    public String driver() {
        return hello == null ? null : hello.driver();
    }

    public boolean connected() {
        return connected;
    }

    public long lastFrameAt() {
        return lastFrameAt;
    }

    /** The key a rule engine tracks this node's alert states under. */
    public String instanceKey() {
        return instanceKey;
    }

    /** The engine key of the node named {@code name}. */
    public static String key(String name) {
        return "node/" + name;
    }

    public Collection<CardState> cards() {
        return Collections.unmodifiableCollection(cards.values());
    }

    public CardState card(String uuid) {
        return cards.get(uuid);
    }

    /** Takes a hello: the node's labels and card list; cards it no longer lists are dropped. */
    void hello(Hello hello, long at) {
        if (!Objects.equals(bootId, hello.bootId())) {
            lost.clear();
            sampleSeq = 0;
            eventSeq = 0;
            lastSeq = 0;
        }
        this.bootId = hello.bootId();
        this.hello = hello;
        this.labels = hello.labels();
        this.lastFrameAt = at;
        this.absentMs = 0;
        this.connected = true;
        List<String> listed = new ArrayList<>();
        for (CardInfo info : hello.cards()) {
            listed.add(info.uuid());
            lost.remove(info.uuid());
            CardState card = cards.get(info.uuid());
            if (card == null) {
                cardFor(info.uuid(), info);
            } else {
                card.info(info);
            }
        }
        members = null;
        cardsMoved();
        attributionChanged();
        seenUuids = new String[0];
        seenCards = new CardState[0];
        cards.values().removeIf(card -> {
            boolean gone = !listed.contains(card.uuid());
            if (gone) {
                lost.add(card.uuid());
                card.dropped();
            }
            return gone;
        });
    }

    /**
     * What this node holds, for a checkpoint, its cards' windows only when {@code withWindows}; {@code caughtUp}
     * when no sample taken is waiting to be windowed, so every frame taken is held.
     */
    NodeImage image(boolean withWindows, boolean caughtUp) {
        List<CardImage> images = new ArrayList<>(cards.size());
        for (CardState card : cards.values()) {
            images.add(card.image(withWindows));
        }
        // what silence counts from: a node not heard since a restart keeps the gateway's absence discounted,
        // or a second restart before its probe is back would count the first one's absence as its silence
        long silentSince = now < absentUntil ? lastFrameAt + absentMs : lastFrameAt;
        return new NodeImage(name, hello, silentSince, List.copyOf(lost), events.entries(), images,
                caughtUp ? Math.max(sampleSeq, lastSeq) : sampleSeq, eventSeq);
    }

    /**
     * Takes back what a checkpoint held of this node, whose hello (if it had one) was taken already: its silence
     * counts from the last frame heard before the restart, less {@code absentMs}, the time the gateway was away
     * since the checkpoint, until it is heard again or {@code absentUntil} passes; it is not connected until it
     * says hello again. Returns how many card windows could not be taken.
     */
    int restore(NodeImage image, long absentMs, long absentUntil) {
        lastFrameAt = image.lastFrameAt();
        this.absentMs = Math.max(0, absentMs);
        this.absentUntil = absentUntil;
        sampleSeq = image.heldSeq();
        lastSeq = image.heldSeq();
        eventSeq = image.eventSeq();
        connected = false;
        lost.addAll(image.lost());
        for (EventLog.Entry e : image.events()) {
            events.add(e.ts(), e.kind(), e.code());
        }
        int skipped = 0;
        for (CardImage c : image.cards()) {
            skipped += cardFor(c.uuid(), null).restore(c);
        }
        cardsMoved();
        return skipped;
    }

    /** The card of the reading at {@code position} of a sample, which names {@code uuid}; see {@link #cardFor}. */
    CardState cardAt(int position, String uuid) {
        if (position < seenUuids.length && seenUuids[position] == uuid) {
            return seenCards[position];
        }
        CardState card = cardFor(uuid, null);
        if (position >= seenUuids.length) {
            seenUuids = Arrays.copyOf(seenUuids, position + 1);
            seenCards = Arrays.copyOf(seenCards, position + 1);
        }
        seenUuids[position] = uuid;
        seenCards[position] = card;
        return card;
    }

    /** The card of this uuid, created when a sample names one that hello did not. */
    CardState cardFor(String uuid, CardInfo info) {
        CardState card = cards.get(uuid);
        if (card == null) {
            card = new CardState(this, uuid, info, fleet.newEventLog());
            card.useSeries(fleet.series());
            cards.put(uuid, card);
            members = null;
            cardsMoved();
            attributionChanged();
        }
        return card;
    }

    void heard(long at) {
        lastFrameAt = Math.max(lastFrameAt, at);
        absentMs = 0;
    }

    /** A sample of this seq was windowed or shed. */
    void sampleTaken(long seq) {
        sampleSeq = Math.max(sampleSeq, seq);
        lastSeq = Math.max(lastSeq, seq);
    }

    /** An event of this seq went into the event logs. */
    void eventTaken(long seq) {
        eventSeq = Math.max(eventSeq, seq);
        lastSeq = Math.max(lastSeq, seq);
    }

    /** A frame of this seq, neither sample nor event, was taken. */
    void taken(long seq) {
        lastSeq = Math.max(lastSeq, seq);
    }

    void disconnected() {
        connected = false;
    }

    void event(long ts, String kind, int code) {
        events.add(ts, kind, code);
        eventMoved();
    }

    /** A card's series moved; returns the change's count, which the card keeps for that series. */
    long seriesMoved() {
        return ++changes;
    }

    /** An event was logged on the node or one of its cards; returns the change's count. */
    long eventMoved() {
        eventsMoved = ++changes;
        return eventsMoved;
    }

    /** The cards, or their windows as a whole, changed: every rule of the node and its cards looks again. */
    private void cardsMoved() {
        cardsMoved = ++changes;
    }

    /** The count of the latest change of the cards as a whole, part of every card's change mark. */
    long cardsMark() {
        return cardsMoved;
    }

    /**
     * A card's sample landed in a slot at or behind one it already had (it may have rewritten a sample), lies
     * outside its unit's range (a sleeping mean assumed it could not), arrived late or resumed a series silent for
     * longer than {@link io.gpuwatch.rules.scope.Series#RESUME_AFTER_MS} (a quiet counts on neither).
     */
    void unforeseenSample() {
        unforeseen++;
    }

    /** Grows with each change of the cards as a whole and each unforeseen sample of any of them. */
    @Override
    public long quietMark() {
        // both only grow, so their sum changes whenever either does
        return cardsMoved + unforeseen;
    }

    @Override
    public long changeMark(Reads reads) {
        long mark = reads.events() ? Math.max(cardsMoved, eventsMoved) : cardsMoved;
        if (reads.series().length > 0) {
            // its cards' windows are read at the node's instant; one not fresh then keeps the rule awake
            for (CardState card : cards.values()) {
                long moved = card.seriesMark(reads, now);
                if (moved == Long.MIN_VALUE) {
                    return Long.MIN_VALUE;
                }
                mark = Math.max(mark, moved);
            }
        }
        return mark;
    }

    void useSeries(List<SeriesSpec> specs) {
        cardsMoved();
        PooledSeries[] next = new PooledSeries[specs.size()];
        for (SeriesSpec spec : specs) {
            next[spec.id()] = new PooledSeries(cards.values(), spec.id());
        }
        series = next;
        for (CardState card : cards.values()) {
            card.useSeries(specs);
        }
    }

    long silentForMs(long at) {
        return Math.max(0, at - lastFrameAt - (at < absentUntil ? absentMs : 0));
    }

    /** Sets the evaluation time for the node and all of its cards. */
    public NodeState at(long nowMs) {
        this.now = nowMs;
        events.at(nowMs);
        for (CardState card : cards.values()) {
            card.at(nowMs);
        }
        return this;
    }

    @Override
    public long now() {
        return now;
    }

    @Override
    public String label(String key) {
        if (key.equals("node")) {
            return name;
        }
        if (key.startsWith("labels.")) {
            return labels.get(key.substring("labels.".length()));
        }
        // what most of its cards run: the node's work, for peers() and for text
        if (key.equals("task") || key.equals("owner") || key.equals("business")) {
            return mostCommon(key);
        }
        return null;
    }

    @Override
    public Map<String, String> identity() {
        return identity;
    }

    /** The labels of the node's last hello ({@code cluster}, {@code zone}, {@code rack}, {@code pool}, …). */
    @Override
    public Map<String, String> context() {
        return labels;
    }

    @Override
    public Series series(int seriesId) {
        return seriesId >= 0 && seriesId < series.length ? series[seriesId] : Series.EMPTY;
    }

    @Override
    public int countEvents(String kind, int code, long windowMs) {
        return events.count(kind, code, windowMs);
    }

    @Override
    public List<String> distinctEvents(String kind, int code, long windowMs) {
        return events.distinct(kind, code, windowMs);
    }

    @Override
    public long silentForMs() {
        return silentForMs(now);
    }

    /** The business whose baselines the node's rules read: the one most of its cards work for. */
    public String baselineKey() {
        return mostCommon("business");
    }

    /** The baseline of the business most of the node's cards work for (the first such card's on a tie). */
    @Override
    public double baseline(int seriesId, BaselineStat stat, double k) {
        return fleet.baseline(mostCommon("business"), seriesId, stat, k, now, series(seriesId));
    }

    /** Against the other nodes of the task most of the node's cards run (the first such card's on a tie). */
    @Override
    public double peers(int seriesId, long windowMs, PeerStat stat) {
        TaskState task = fleet.taskNamed(mostCommon("task"));
        return task == null ? stat.none() : task.nodePeers(seriesId, windowMs, now).stat(this, stat);
    }

    /** The value of card label {@code key} most of the node's cards have; null when none has one. */
    private String mostCommon(String key) {
        // node rules ask for the node's task on every peers(…) read; it changes only with a card's attribution
        int k = switch (key) {
            case "task" -> 0;
            case "owner" -> 1;
            default -> 2;
        };
        if (commonOf[k] != attributions) {
            common[k] = countMostCommon(key);
            commonOf[k] = attributions;
        }
        return common[k];
    }

    private String countMostCommon(String key) {
        String best = null;
        int most = 0;
        for (CardState a : cards.values()) {
            String b = a.label(key);
            if (b == null || b.equals(best)) {
                continue;
            }
            int n = 0;
            for (CardState c : cards.values()) {
                if (b.equals(c.label(key))) {
                    n++;
                }
            }
            if (n > most) {
                most = n;
                best = b;
            }
        }
        return best;
    }

    /** A card's task, owner or business changed, or the cards did: the most common ones are counted again. */
    void attributionChanged() {
        attributions++;
    }

    FleetState fleet() {
        return fleet;
    }

    @Override
    public int lostCards() {
        return lost.size();
    }

    /** The node's cards, for {@code count(cards where …)} and {@code distinct(cards where …)}. */
    @Override
    public List<? extends ScopeView> members() {
        if (members == null) {
            members = List.copyOf(cards.values());
        }
        return members;
    }

    @Override
    public boolean allocated() {
        for (CardState card : cards.values()) {
            if (card.allocated()) {
                return true;
            }
        }
        return false;
    }

    public long retainedBytes() {
        long total = events.retainedBytes();
        for (CardState card : cards.values()) {
            total += card.retainedBytes();
        }
        return total;
    }
}
