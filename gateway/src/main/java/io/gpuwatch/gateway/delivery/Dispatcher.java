package io.gpuwatch.gateway.delivery;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * Hands each notification to every configured receiver at once, so a page leaves the moment the ledger
 * decides it. Routing and grouping come in front of this stage later; a failed delivery is counted and
 * logged, and never stops the others.
 */
public final class Dispatcher {
    private static final Logger LOG = Logger.getLogger(Dispatcher.class.getName());

    private final List<Receiver> receivers;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    public Dispatcher(List<Receiver> receivers) {
        this.receivers = List.copyOf(receivers);
    }

    public void dispatch(Notification n) {
        for (Receiver r : receivers) {
            r.send(List.of(n)).onComplete(ar -> {
                if (ar.succeeded()) {
                    sent.incrementAndGet();
                } else {
                    failed.incrementAndGet();
                    LOG.warning("receiver " + r.name() + " failed to deliver " + n.status() + " "
                            + n.labels().get("alertname") + " (" + n.fingerprint() + "): " + ar.cause().getMessage());
                }
            });
        }
    }

    public long sent() {
        return sent.get();
    }

    public long failed() {
        return failed.get();
    }
}
