package io.gpuwatch.notify;

import io.vertx.core.Future;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Somewhere notifications go. A batch is one group of alerts (the routing stage decides what belongs
 * together); a receiver delivers it as one message where its target understands groups (webhook) or one entry
 * per alert (console). {@link #send} never throws: its future succeeds once the batch is delivered, or fails
 * with a {@link DeliveryFailure} once the receiver has given up. An empty batch succeeds without sending.
 */
public interface Receiver {
    /** The name configuration gives this receiver; it appears in payloads, logs and failures. */
    String name();

    /** Delivers one group of alerts, retrying as the receiver sees fit. */
    Future<Void> send(List<Notification> batch);

    /**
     * Delivers a batch with the key of this delivery: the same key for a re-send of the same delivery (after a
     * gateway was killed mid-send and restarted), so a receiver that can carry it lets its target drop the copy.
     * Receivers whose target has no such notion ignore it; pagers dedupe on their own alert keys.
     */
    default Future<Void> send(List<Notification> batch, String deliveryKey) {
        return send(batch);
    }

    /**
     * Delivers a batch of the routing {@code group}, with the key of this delivery. Receivers whose payload names
     * the group (the webhook's {@code groupKey} and {@code groupLabels}) use it; the others send as
     * {@link #send(List, String)} does.
     */
    default Future<Void> send(Group group, List<Notification> batch, String deliveryKey) {
        return send(batch, deliveryKey);
    }

    /**
     * How often this receiver wants every alert it was told fires sent again, for a target that forgets what it
     * was told (Alertmanager keeps no alerts across a restart, and ends an alert not re-sent in time); empty for
     * targets that keep what they are told.
     */
    default Optional<Duration> resendInterval() {
        return Optional.empty();
    }

    /**
     * Sends again, on its {@link #resendInterval}, every alert this receiver was told fires. Tried once: the next
     * interval's re-send is the retry, with what fires then. Receivers without a re-send interval are not asked.
     */
    default Future<Void> resend(List<Notification> firing) {
        return send(firing);
    }
}
