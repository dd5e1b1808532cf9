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
        return firing(batch) ? addresses() : List.of();
    }

    /** An address with the display name of its person, for platforms whose mention shows a name (Teams). */
    record Named(String address, String name) {
    }

    /** The people to mention now with their names; without names at hand, each address stands for its name. */
    default List<Named> named() {
        return addresses().stream().map(a -> new Named(a, a)).toList();
    }

    /** As {@link #addressesFor}, with names. */
    default List<Named> namedFor(List<Notification> batch) {
        return firing(batch) ? named() : List.of();
    }

    private static boolean firing(List<Notification> batch) {
        return batch.stream().anyMatch(n -> n.status() == Notification.Status.FIRING);
    }
}
