package io.gpuwatch.gateway.delivery;

import io.gpuwatch.gateway.group.Flush;
import io.gpuwatch.gateway.route.Route;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The re-send stage: to each receiver that asks for it ({@link Receiver#resendInterval}), every alert it was
 * told fires and not told ended, again once per interval, as Prometheus re-sends to Alertmanager, so a target
 * that lost its alerts (a restarted Alertmanager) has them back within one interval. One refresh per receiver
 * at a time: while the last is still being handed on (a direct send retrying through an outage), the next
 * interval is skipped instead of queued behind it. Owned by the dispatcher's event loop.
 */
final class Resender {
    /** The outbox key of a receiver's refresh, the one row its refreshes share. */
    static final String KEY = "gpuwatch:resend";

    private final Map<String, Instant> next = new HashMap<>();
    private final Set<String> inFlight = new HashSet<>();

    /**
     * The refreshes due at {@code now}: one for each receiver whose interval has passed since its last, holding
     * what {@code told} says it was told fires (none when that is nothing). A receiver seen for the first time
     * starts its interval now, its first notification being the first send.
     */
    List<Flush> due(Collection<Receiver> receivers, Route root, Function<String, List<Notification>> told,
                    Instant now) {
        List<Flush> out = new ArrayList<>();
        for (Receiver r : receivers) {
            Optional<Duration> every = r.resendInterval();
            if (every.isEmpty()) {
                continue;
            }
            Instant at = next.get(r.name());
            if (at == null || now.isBefore(at)) {
                next.putIfAbsent(r.name(), now.plus(every.get()));
                continue;
            }
            next.put(r.name(), now.plus(every.get()));
            if (inFlight.contains(r.name())) {
                continue;
            }
            List<Notification> alerts = told.apply(r.name());
            if (!alerts.isEmpty()) {
                inFlight.add(r.name());
                out.add(new Flush(root, r.name(), KEY, Map.of(), alerts, Flush.Reason.REFRESH, now));
            }
        }
        return out;
    }

    /** The refresh of {@code receiver} was handed on (sent, queued or failed): the next may go. */
    void done(String receiver) {
        inFlight.remove(receiver);
    }
}
