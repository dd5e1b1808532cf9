package io.gpuwatch.notify.oncall;

import io.gpuwatch.notify.Notification;

import java.util.List;

/**
 * Whom a chat message mentions so their phone rings: the addresses, on the receiver's own channel (a Slack member
 * id, a Feishu open_id, a DingTalk mobile, a WeCom userid), of the people on call when the message is sent.
 * Asked at every send, so a message after a hand-off mentions the new person; the schedules behind it live in
 * the gateway, which this module does not know.
 */
@FunctionalInterface
public interface OnCall {
    /** Mentions nobody. */
    OnCall NOBODY = List::of;

    /** The addresses to mention now, without duplicates, in the order the schedules give them. */
    List<String> addresses();

    /**
     * Whom a message about {@code batch} mentions: nobody unless an alert in it fires, so no phone rings for a
     * resolution.
     */
    default List<String> addressesFor(List<Notification> batch) {
        return batch.stream().anyMatch(n -> n.status() == Notification.Status.FIRING) ? addresses() : List.of();
    }
}
