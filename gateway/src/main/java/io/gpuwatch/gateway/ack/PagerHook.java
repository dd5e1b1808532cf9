package io.gpuwatch.gateway.ack;

import io.gpuwatch.notify.secret.Secret;

import java.util.Locale;
import java.util.Objects;

/**
 * A paging or chat service may tell the gateway that the receiver {@code receiver}'s alerts were acknowledged
 * there, proving it with {@code secret}: PagerDuty signs its V3 webhooks with it, Opsgenie sends it in a header,
 * Slack signs the button clicks of its messages with the app's signing secret, a Feishu app signs its card
 * callbacks with its Encrypt Key, and Feishu, DingTalk and WeCom messages carry links signed with it. {@code toString} shows where the secret came from, never the secret.
 */
public record PagerHook(String receiver, Service service, Secret secret) {
    /** The services whose acknowledgements the gateway takes. */
    public enum Service {
        PAGERDUTY, OPSGENIE, SLACK, FEISHU, DINGTALK, WECOM,
        /** A Feishu app's card callbacks, signed with the app's Encrypt Key. */
        FEISHU_APP;

        /**
         * The last part of this service's webhook path, e.g. {@code pagerduty-webhook}; the chat bots without
         * callbacks share {@code ack-link}, the signed link their messages carry.
         */
        public String path() {
            if (this == FEISHU_APP) {
                return "feishu-callback";
            }
            return signsLinks() ? "ack-link" : name().toLowerCase(Locale.ROOT) + "-webhook";
        }

        /** True for the chat bots whose messages carry a signed acknowledge link instead of a callback. */
        public boolean signsLinks() {
            return this == FEISHU || this == DINGTALK || this == WECOM;
        }
    }

    public PagerHook {
        Objects.requireNonNull(receiver, "receiver");
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(secret, "secret");
    }
}
