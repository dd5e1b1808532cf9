package io.gpuwatch.gateway.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import io.gpuwatch.gateway.delivery.Delivery;
import io.gpuwatch.notify.Notification;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.shareddata.AsyncMap;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;

/**
 * This gateway's place among its peers: the live members and their probe URLs (the cluster-wide map
 * {@value #MEMBERS}), the {@link HashRing} that names each node's owner, the {@link SendClaims} that let one
 * gateway only send a notification, and the {@link SharedAlerts} a gateway taking over a node reads back.
 * Membership comes from Hazelcast's membership events (Vert.x keeps the cluster manager's single node listener
 * for itself) and a refresh every second, which also picks up a new member's URL once it is published.
 * Runs on the gateway's context; cluster maps are only touched through Vert.x's asynchronous map API.
 */
public final class Cluster {
    /** Member id to advertised probe URL. */
    public static final String MEMBERS = "gpuwatch.members";
    private static final Logger LOG = Logger.getLogger(Cluster.class.getName());
    private static final long REFRESH_MS = 1000;

    private final Vertx vertx;
    private final HazelcastClusterManager manager;
    private final String probeUrl;
    private Context context;
    private AsyncMap<String, String> members;
    private SendClaims claims;
    private SharedAlerts alerts;
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
        return Future.all(m, c, a).compose(v -> {
            members = m.result();
            claims = new SendClaims(c.result());
            alerts = new SharedAlerts(a.result());
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

    /** Stops following membership; the cluster itself is left when Vert.x closes. */
    public void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
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
            }
            return null;
        });
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
        return new ClaimedDelivery(claims, inner, this::speaksFor);
    }

    /** Shares a change of an alert this gateway speaks for with its peers. */
    public void record(Notification n) {
        if (speaksFor(n)) {
            alerts.record(n).onFailure(e -> LOG.warning("could not share alert " + n.fingerprint() + " with the "
                    + "cluster: " + e.getMessage()));
        }
    }

    /** The shared firing alerts of {@code node}, for a gateway that has just taken it over. */
    public Future<List<SharedAlerts.Entry>> alertsOf(String node) {
        return alerts.ofNode(node);
    }
}
