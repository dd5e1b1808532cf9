package io.gpuwatch.notify.receiver.chat;

import io.gpuwatch.notify.render.Report;
import io.vertx.core.Future;

/**
 * A chat channel that takes periodic reports (digests) besides alert batches. {@link #post} never throws: its
 * future succeeds once the report is delivered, or fails with a {@link io.gpuwatch.notify.DeliveryFailure}.
 */
public interface ReportTarget {
    /** The name of the receiver whose channel this is. */
    String name();

    /**
     * True when the channel shows an image given by URL (Slack, Teams); the others would need an upload
     * through an app API that a webhook cannot reach, so they get the trend as text only.
     */
    boolean showsImages();

    /** Delivers one report, cut to the channel's size limit. */
    Future<Void> post(Report report);
}
