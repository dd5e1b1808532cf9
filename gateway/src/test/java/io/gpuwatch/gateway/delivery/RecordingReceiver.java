package io.gpuwatch.gateway.delivery;

import io.gpuwatch.notify.Notification;
import io.gpuwatch.notify.Receiver;
import io.vertx.core.Future;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;

/** A receiver for tests: takes every batch at once and keeps it, as batches, as notifications and as arrivals. */
public final class RecordingReceiver implements Receiver {
    private final String name;
    private final List<List<Notification>> batches = new CopyOnWriteArrayList<>();
    private final List<Notification> notifications = new CopyOnWriteArrayList<>();
    private final BlockingQueue<Notification> arrivals = new LinkedBlockingQueue<>();

    public RecordingReceiver(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Future<Void> send(List<Notification> batch) {
        batches.add(List.copyOf(batch));
        notifications.addAll(batch);
        arrivals.addAll(batch);
        return Future.succeededFuture();
    }

    /** Every batch sent, in order. */
    public List<List<Notification>> batches() {
        return batches;
    }

    /** Every notification sent, in order. */
    public List<Notification> notifications() {
        return notifications;
    }

    /** The notifications not yet taken by the test, for waiting on the next one. */
    public BlockingQueue<Notification> arrivals() {
        return arrivals;
    }
}
