package io.gpuwatch.gateway.cluster;

import io.gpuwatch.notify.Notification;
import io.vertx.core.Future;
import io.vertx.core.shareddata.AsyncMap;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Which gateways hold each alert of a task, business or queue firing. Such an alert has no owner node: each
 * gateway evaluates it on the cards it serves, so one whose share of a task lost the faulted card (its node
 * moved to a peer) sees it end while a peer still sees it hold. The alert has resolved only when no live
 * gateway holds it any more; until then a resolve is not news.
 */
public final class SharedHolders {
    /** The cluster-wide map: {@code fingerprint@member} for each gateway holding that alert firing. */
    public static final String MAP = "gpuwatch.holders";

    private final AsyncMap<String, String> map;
    private final String self;

    /** Holders in {@code map}, shared by every gateway of the cluster; this gateway is {@code self}. */
    public SharedHolders(AsyncMap<String, String> map, String self) {
        this.map = map;
        this.self = self;
    }

    /** Whether {@code n} is of an alert several gateways may hold: one without a node (a task, business, queue). */
    public static boolean concerns(Notification n) {
        return !n.labels().containsKey("node");
    }

    /** This gateway holds {@code fingerprint} firing. */
    public Future<Void> hold(String fingerprint) {
        return map.put(fingerprint + "@" + self, "");
    }

    /** This gateway no longer holds {@code fingerprint} firing. */
    public Future<Void> release(String fingerprint) {
        return map.remove(fingerprint + "@" + self).mapEmpty();
    }

    /** Whether a gateway other than this one, and among the {@code live} members, holds {@code fingerprint}. */
    public Future<Boolean> heldElsewhere(String fingerprint, Set<String> live) {
        return map.keys().map(keys -> {
            for (String key : keys) {
                int at = key.lastIndexOf('@');
                String member = key.substring(at + 1);
                if (at > 0 && key.substring(0, at).equals(fingerprint) && !member.equals(self)
                        && live.contains(member)) {
                    return true;
                }
            }
            return false;
        });
    }

    /** Forgets the holds of gateways no longer among the {@code live} members: a dead gateway holds nothing. */
    public Future<Void> purge(Set<String> live) {
        return map.keys().compose(keys -> {
            List<Future<String>> removed = new ArrayList<>();
            for (String key : keys) {
                String member = key.substring(key.lastIndexOf('@') + 1);
                if (!live.contains(member)) {
                    removed.add(map.remove(key));
                }
            }
            return Future.all(removed).mapEmpty();
        });
    }
}
