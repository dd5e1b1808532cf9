package io.gpuwatch.gateway.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import io.gpuwatch.gateway.delivery.Delivery;
import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.notify.Notification;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * This gateway's place among its peers: the live members and their probe URLs (the cluster-wide map
 * {@value #MEMBERS}), the {@link HashRing} that names each node's owner, the {@link SendClaims} that let one
 * gateway only send a notification, the {@link SharedAlerts} a gateway taking over a node reads back, and the
 * silences and acknowledgements every gateway keeps a {@link Replica} of (maps {@value #SILENCES} and
 * {@value #ACKS}, each change also published at {@value #CHANGED} so that peers take it at once).
 * Membership comes from Hazelcast's membership events (Vert.x keeps the cluster manager's single node listener
 * for itself) and a refresh every second, which also picks up a new member's URL once it is published.
 * Runs on the gateway's context; cluster maps are only touched through Vert.x's asynchronous map API.
 */
public final class Cluster {
    /** Member id to advertised probe URL. */
    public static final String MEMBERS = "gpuwatch.members";
    /** Silence id to the silence's latest version, expired ones included ({@link SilenceForm}). */
    public static final String SILENCES = "gpuwatch.silences";
    /** Alert fingerprint to its latest acknowledgement ({@link AckForm}). */
    public static final String ACKS = "gpuwatch.acks";
    /**
     * Node name to the evaluation of the node as its owner last shared it (its part of a checkpoint: cards,
     * windows, events, pending and firing alerts), for the gateway that takes the node over.
     */
    public static final String EVALUATION = "gpuwatch.evaluation";
    /** Event-bus address each silence or acknowledgement change is published at, from the gateway that made it. */
    public static final String CHANGED = "gpuwatch.shared.changed";
    private static final String FROM = "from";
    private static final Logger LOG = Logger.getLogger(Cluster.class.getName());
    private static final long REFRESH_MS = 1000;

    private final Vertx vertx;
    private final HazelcastClusterManager manager;
    private final String probeUrl;
    private Context context;
    private AsyncMap<String, String> members;
    private SendClaims claims;
    private SharedAlerts alerts;
    private SharedHolders holders;
    /** The deliveries {@link #claimed} made, whose kept-back resolves a change of members may release. */
    private final List<ClaimedDelivery> deliveries = new ArrayList<>();
    private AsyncMap<String, String> evaluation;
    private SharedMap<Silence> silences;
    private SharedMap<Acknowledgement> acks;
    private SharedEscalations escalations;
    private Replica replica;
    private MessageConsumer<Object> changes;
    private HashRing ring = new HashRing(List.of());
    private Map<String, String> urls = Map.of();
    private Runnable onChange = () -> { };
    private long timer = -1;

    private Cluster(Vertx vertx, HazelcastClusterManager manager, String probeUrl) {
        this.vertx = vertx;
        this.manager = manager;
        this.probeUrl = probeUrl;
    }

    /** Starts a clustered Vert.x that joins the members {@code settings} names; fails when Hazelcast cannot. */
    public static Future<Cluster> join(ClusterSettings settings) {
        HazelcastClusterManager manager = new HazelcastClusterManager(settings.hazelcast());
        return Vertx.builder().with(settings.vertxOptions()).withClusterManager(manager).buildClustered()
                .map(v -> new Cluster(v, manager, settings.probeUrl()));
    }

    /** The clustered Vert.x to deploy the gateway on. */
    public Vertx vertx() {
        return vertx;
    }

    /** This gateway's member id. */
    public String memberId() {
        return manager.getNodeId();
    }

    /**
     * Publishes this gateway's probe URL, opens the shared maps and starts following membership; call on the
     * gateway's context. {@code onChange} runs there whenever the owners may have changed.
     */
    public Future<Void> start(Runnable onChange) {
        this.context = vertx.getOrCreateContext();
        this.onChange = onChange;
        Future<AsyncMap<String, String>> m = vertx.sharedData().getAsyncMap(MEMBERS);
        Future<AsyncMap<String, String>> c = vertx.sharedData().getAsyncMap(SendClaims.MAP);
        Future<AsyncMap<String, String>> a = vertx.sharedData().getAsyncMap(SharedAlerts.MAP);
        Future<AsyncMap<String, String>> s = vertx.sharedData().getAsyncMap(SILENCES);
        Future<AsyncMap<String, String>> k = vertx.sharedData().getAsyncMap(ACKS);
        Future<AsyncMap<String, String>> e = vertx.sharedData().getAsyncMap(EVALUATION);
        Future<AsyncMap<String, String>> x = vertx.sharedData().getAsyncMap(SharedEscalations.MAP);
        Future<AsyncMap<String, String>> p = vertx.sharedData().getAsyncMap(SharedEscalations.PAGES);
        Future<AsyncMap<String, String>> h = vertx.sharedData().getAsyncMap(SharedHolders.MAP);
        return Future.all(List.of(m, c, a, s, k, e, x, p, h)).compose(v -> {
            escalations = new SharedEscalations(x.result(), p.result(), memberId());
            evaluation = e.result();
            members = m.result();
            claims = new SendClaims(c.result());
            alerts = new SharedAlerts(a.result());
            holders = new SharedHolders(h.result(), memberId());
            silences = new SharedMap<>(s.result(), SilenceForm.INSTANCE);
            acks = new SharedMap<>(k.result(), AckForm.INSTANCE);
            return members.put(memberId(), probeUrl);
        }).compose(v -> {
            manager.getHazelcastInstance().getCluster().addMembershipListener(new MembershipListener() {
                @Override
                public void memberAdded(MembershipEvent e) {
                    context.runOnContext(x -> refresh());
                }

                @Override
                public void memberRemoved(MembershipEvent e) {
                    String id = e.getMember().getUuid().toString();
                    context.runOnContext(x -> members.remove(id).onComplete(ar -> refresh()));
                }
            });
            timer = vertx.setPeriodic(REFRESH_MS, id -> refresh());
            return refresh();
        });
    }

    /** Stops following membership and peers' changes; the cluster itself is left when Vert.x closes. */
    public void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
        if (changes != null) {
            changes.unregister();
            changes = null;
        }
    }

    /**
     * Keeps {@code replica} in step with the cluster from now on: peers' changes are taken as they are published,
     * the silences and acknowledgements the cluster holds are taken now, and those of the replica that the cluster
     * lacks, or holds older versions of (made while this gateway was alone), are shared. Call once after
     * {@link #start} completes, with the replica's store open, before the gateway's API answers.
     */
    public Future<Void> shareWith(Replica replica) {
        if (silences == null) {
            throw new IllegalStateException("the cluster's maps open in start(); share after it completes");
        }
        this.replica = replica;
        changes = vertx.eventBus().consumer(CHANGED, this::changed);
        // listening first: a change published while the maps are read is taken either way
        return changes.completion()
                .compose(v -> merge(silences, replica::silences, replica::take))
                .compose(v -> merge(acks, replica::acks, replica::take));
    }

    private <T> Future<Void> merge(SharedMap<T> map, Supplier<List<T>> local, Predicate<T> take) {
        return map.all().compose(shared -> {
            Map<String, T> held = new HashMap<>();
            for (T t : shared) {
                held.put(map.form().key(t), t);
                take.test(t);
            }
            List<Future<Boolean>> written = new ArrayList<>();
            for (T t : local.get()) {
                T there = held.get(map.form().key(t));
                if (there == null || map.form().newer(t, there)) {
                    // the gateway starts all the same; its own copy is shared with its next change
                    written.add(publish(map, t).recover(e -> {
                        LOG.warning("could not share " + map.form().kind() + " " + map.form().key(t)
                                + " with the cluster on joining: " + e.getMessage());
                        return Future.succeededFuture(false);
                    }));
                }
            }
            return Future.all(written).mapEmpty();
        });
    }

    /** Shares a silence this gateway made, changed or expired, once its own store has kept it. */
    public void share(Silence silence) {
        shared(silences, silence);
    }

    /** Shares an acknowledgement this gateway recorded, once its own store has kept it. */
    public void share(Acknowledgement ack) {
        shared(acks, ack);
    }

    private <T> void shared(SharedMap<T> map, T record) {
        if (replica == null) {
            throw new IllegalStateException("share with the cluster after shareWith(replica) completes");
        }
        publish(map, record).onFailure(e -> LOG.warning("could not share " + map.form().kind() + " "
                + map.form().key(record) + " with the cluster, so peers have the version before it: "
                + e.getMessage()));
    }

    /** Writes {@code record} to {@code map} and, when it is the newest there, tells the peers. */
    private <T> Future<Boolean> publish(SharedMap<T> map, T record) {
        SharedForm<T> form = map.form();
        return map.offer(record).onSuccess(won -> {
            if (won) {
                vertx.eventBus().publish(CHANGED, new JsonObject().put("kind", form.kind()).put("key", form.key(record))
                        .put("value", form.encode(record)), new DeliveryOptions().addHeader(FROM, memberId()));
            }
        });
    }

    private void changed(Message<Object> m) {
        if (memberId().equals(m.headers().get(FROM))) {
            return;
        }
        if (!(m.body() instanceof JsonObject body) || !(body.getValue("key") instanceof String k)
                || !(body.getValue("value") instanceof String text)) {
            String from = m.headers().get(FROM);
            LOG.warning("skipped a change at " + CHANGED + " from " + (from == null ? "an unnamed sender" : from)
                    + " without a key and a value: " + m.body());
            return;
        }
        Object kind = body.getValue("kind");
        if (SilenceForm.INSTANCE.kind().equals(kind)) {
            Silence s = silences.read(k, text);
            if (s != null) {
                replica.take(s);
            }
        } else if (AckForm.INSTANCE.kind().equals(kind)) {
            Acknowledgement a = acks.read(k, text);
            if (a != null) {
                replica.take(a);
            }
        } else {
            LOG.warning("skipped a change at " + CHANGED + " of " + k + ": unknown kind " + kind);
        }
    }

    /**
     * Takes the shared acknowledgements of {@code fingerprints}, alerts this gateway has just taken over: it may
     * have let go of them while a peer owned the alerts.
     */
    public Future<Void> takeAcks(Collection<String> fingerprints) {
        if (replica == null) {
            return Future.succeededFuture();
        }
        List<Future<Acknowledgement>> read = fingerprints.stream().map(acks::get).toList();
        return Future.all(read).<Void>map(v -> {
            read.forEach(f -> {
                if (f.result() != null) {
                    replica.take(f.result());
                }
            });
            return null;
        }).recover(e -> {
            // the alerts are taken over all the same; only who acknowledged them may be missing
            LOG.warning("could not read the acknowledgements of " + fingerprints + " from the cluster: "
                    + e.getMessage());
            return Future.succeededFuture();
        });
    }

    private Future<Void> refresh() {
        return members.entries().map(all -> {
            Set<String> live = new HashSet<>(manager.getNodes());
            Map<String, String> known = new HashMap<>();
            all.forEach((id, url) -> {
                if (live.contains(id)) {
                    known.put(id, url);
                }
            });
            known.put(memberId(), probeUrl);
            HashRing next = new HashRing(known.keySet());
            boolean changed = !next.members().equals(ring.members());
            ring = next;
            urls = known;
            if (changed) {
                LOG.info("cluster members now " + known.size() + ": " + known.values());
                onChange.run();
                // a gateway gone holds nothing firing: the resolves kept back for it are news now
                holders.purge(known.keySet()).onComplete(r -> deliveries.forEach(ClaimedDelivery::recheck));
            }
            return null;
        });
    }

    /** The gateways of the cluster as this one last saw them: member id to probe URL, this gateway's included. */
    public Map<String, String> members() {
        return Map.copyOf(urls);
    }

    /** Where a probe of {@code node} should go instead; empty when this gateway owns it. */
    public Optional<String> redirectFor(String node) {
        return ring.owner(node).filter(id -> !id.equals(memberId())).map(urls::get);
    }

    /** Whether this gateway owns {@code node} now. */
    public boolean owns(String node) {
        return redirectFor(node).isEmpty();
    }

    /**
     * Whether this gateway speaks for {@code n}: an alert naming a node belongs to that node's owner, so a
     * gateway holding a stale copy of a node that moved away (its windows going silent) stays quiet about it.
     */
    public boolean speaksFor(Notification n) {
        String node = n.labels().get("node");
        return node == null || owns(node);
    }

    /**
     * {@code inner} sending only what this gateway speaks for, with a send claim taken before each group, so
     * one gateway of the cluster sends each notification.
     */
    public Delivery claimed(Delivery inner) {
        if (claims == null) {
            throw new IllegalStateException("the cluster's claim map opens in start(); claim after it completes");
        }
        ClaimedDelivery d = new ClaimedDelivery(claims, inner, this::speaksFor, holders,
                () -> Set.copyOf(urls.keySet()));
        deliveries.add(d);
        return d;
    }

    /**
     * Tells the peers that this gateway holds the alerts {@code live} firing: those without a node, which other
     * gateways may hold too, after a restart took them back from the store.
     */
    public void holding(List<Notification> live) {
        live.forEach(this::shareHolding);
    }

    /** Tells the peers whether this gateway holds {@code n} firing, for an alert several of them may hold. */
    private void shareHolding(Notification n) {
        if (!SharedHolders.concerns(n)) {
            return;
        }
        Future<Void> shared = n.status() == Notification.Status.FIRING ? holders.hold(n.fingerprint())
                : holders.release(n.fingerprint());
        shared.onFailure(e -> LOG.warning("could not share whether alert " + n.fingerprint() + " fires here: "
                + e.getMessage()));
    }

    /** Shares a change of an alert this gateway speaks for with its peers. */
    public void record(Notification n) {
        shareHolding(n);
        if (speaksFor(n)) {
            alerts.record(n).onFailure(e -> LOG.warning("could not share alert " + n.fingerprint() + " with the "
                    + "cluster: " + e.getMessage()));
        }
    }

    /** Where each alert's escalation stands across the cluster, and who sent which page; once started. */
    public SharedEscalations escalations() {
        return escalations;
    }

    /** The shared firing alerts of {@code node}, for a gateway that has just taken it over. */
    public Future<List<SharedAlerts.Entry>> alertsOf(String node) {
        return alerts.ofNode(node);
    }

    /** Shares what this gateway evaluates of {@code node}, as text, for whoever takes the node over next. */
    public Future<Void> shareEvaluation(String node, String text) {
        return evaluation.put(node, text);
    }

    /** The nodes whose evaluation some gateway has shared. */
    public Future<Set<String>> sharedNodes() {
        return evaluation.keys();
    }

    /** The evaluation of {@code node} its former owner last shared; null when none did. */
    public Future<String> evaluationOf(String node) {
        return evaluation.get(node);
    }
}
