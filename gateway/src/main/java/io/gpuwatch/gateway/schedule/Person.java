package io.gpuwatch.gateway.schedule;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Someone who can be on call: an id that schedules name them by, a display name, and how each channel reaches them
 * (a Slack or WeCom user id, a Feishu open id, a DingTalk mobile number, an email address, a PagerDuty user…).
 */
public record Person(String id, String name, Map<String, String> contacts) {
    /** The channels a contact may be given for; a message on one of them mentions the person by this address. */
    public static final List<String> CHANNELS =
            List.of("slack", "feishu", "dingtalk", "wecom", "teams", "email", "pagerduty", "opsgenie", "phone");

    public Person {
        contacts = Map.copyOf(contacts);
    }

    /** How {@code channel} reaches this person, when the roster says. */
    public Optional<String> contact(String channel) {
        return Optional.ofNullable(contacts.get(channel));
    }

    /** The contacts in channel order, for printing. */
    public Map<String, String> sortedContacts() {
        return new TreeMap<>(contacts);
    }
}
