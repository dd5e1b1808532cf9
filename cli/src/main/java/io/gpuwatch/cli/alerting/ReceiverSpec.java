package io.gpuwatch.cli.alerting;

import io.gpuwatch.gateway.digest.DigestSchedule;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.notify.receiver.chat.ReportTarget;
import io.gpuwatch.notify.secret.Secret;

import java.util.List;

/**
 * One receiver of an alerting file, checked, with where it was written; {@link #create} makes it. A chat
 * receiver with a {@code digest:} also has its schedules and makes the target its digests go to. A pager with a
 * {@code webhookSecret:} has the secret its service proves acknowledgement webhooks with (null without). A chat
 * receiver with {@code mention:} names the schedule layers whose on-call person its messages mention. A Feishu
 * receiver with {@code callbackKey:} has its Feishu app's Encrypt Key, which signs the app's card callbacks.
 */
public record ReceiverSpec(String name, String type, String file, int line, int column, Factory factory,
                           List<DigestSchedule> digests, ReportFactory reports, Secret webhookSecret,
                           List<MentionRef> mentions, Secret callbackKey) {
    /** Makes a receiver once its file has been checked. */
    @FunctionalInterface
    public interface Factory {
        Receiver create(Wiring wiring);
    }

    /** Makes the channel a chat receiver's digests are posted to. */
    @FunctionalInterface
    public interface ReportFactory {
        ReportTarget create(Wiring wiring);
    }

    public ReceiverSpec {
        digests = List.copyOf(digests);
        mentions = List.copyOf(mentions);
        if (!digests.isEmpty() && reports == null) {
            throw new IllegalArgumentException("receiver " + name + " has digests but nothing to post them to");
        }
    }

    /** A receiver without digests. */
    public ReceiverSpec(String name, String type, String file, int line, int column, Factory factory) {
        this(name, type, file, line, column, factory, List.of(), null, null, List.of(), null);
    }

    /** The receiver, over the shared client and the wiring's console. */
    public Receiver create(Wiring wiring) {
        return factory.create(wiring);
    }
}
