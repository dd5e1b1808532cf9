package io.gpuwatch.gateway.group;

import io.gpuwatch.gateway.route.Route;
import io.gpuwatch.notify.Group;
import io.gpuwatch.notify.Notification;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One notification to send: the alerts of one group for its route's receiver, firing ones and those that
 * resolved since the receiver was told they fire.
 */
public record Flush(Route route, String receiver, String groupKey, Map<String, String> groupLabels,
                    List<Notification> alerts, Reason reason, Instant at) {
    /** Why it goes out now, in the words of Alertmanager's {@code notification_reason}. */
    public enum Reason {
        /** The group's first notification, {@code group_wait} after it formed. */
        FIRST,
        /** An alert started firing since the last notification. */
        NEW_ALERTS,
        /** An alert the receiver was told about has resolved. */
        RESOLVED,
        /** Nothing changed, but {@code repeat_interval} has passed since the last notification. */
        REPEAT,
        /**
         * Not a group's notification: every alert a receiver that forgets (Alertmanager) was told fires, sent
         * again on its re-send interval; only the latest one matters, so it is neither queued twice nor retried.
         */
        REFRESH
    }

    public Flush {
        groupLabels = Map.copyOf(groupLabels);
        alerts = List.copyOf(alerts);
    }

    /** The routing group this notification is for, as receivers name it in their payloads. */
    public Group group() {
        return new Group(groupKey, groupLabels);
    }

    /** The same group's notification with {@code alerts} instead, sent for {@code reason}. */
    public Flush with(List<Notification> alerts, Reason reason) {
        return new Flush(route, receiver, groupKey, groupLabels, alerts, reason, at);
    }

    /** The firing alerts of this notification. */
    public List<Notification> firing() {
        return alerts.stream().filter(a -> a.status() == Notification.Status.FIRING).toList();
    }

    /** The resolved alerts of this notification. */
    public List<Notification> resolved() {
        return alerts.stream().filter(a -> a.status() == Notification.Status.RESOLVED).toList();
    }
}
