package io.gpuwatch.gateway.cluster;

import io.gpuwatch.notify.Notification;
import io.vertx.core.Future;
import io.vertx.core.shareddata.AsyncMap;

/**
 * The cluster's notification log: for each receiver and alert fingerprint, whether the receiver was last told
 * it fires or that it resolved. A gateway takes the claim with an atomic map operation before it sends, so of
 * two gateways that see the same change (the old owner before a failover, the new one after it) one sends.
 * A claim is taken before the send: a gateway killed between the two loses that one notification rather than
 * letting a peer page twice.
 */
public final class SendClaims {
    /** The cluster-wide map: {@code receiver/fingerprint} to {@code firing} or {@code resolved}. */
    public static final String MAP = "gpuwatch.claims";
    private static final String FIRING = "firing";
    private static final String RESOLVED = "resolved";

    private final AsyncMap<String, String> map;

    /** Claims in {@code map}, shared by every gateway of the cluster. */
    public SendClaims(AsyncMap<String, String> map) {
        this.map = map;
    }

    /**
     * True when this gateway may tell {@code receiver} of {@code n}: a firing alert the receiver was not told
     * fires (never, or it resolved since), or a resolution of an alert the receiver was told fires.
     */
    public Future<Boolean> claim(String receiver, Notification n) {
        String key = receiver + "/" + n.fingerprint();
        if (n.status() == Notification.Status.RESOLVED) {
            return map.replaceIfPresent(key, FIRING, RESOLVED);
        }
        return map.putIfAbsent(key, FIRING).compose(before -> before == null ? Future.succeededFuture(true)
                : before.equals(RESOLVED) ? map.replaceIfPresent(key, RESOLVED, FIRING)
                : Future.succeededFuture(false));
    }
}
