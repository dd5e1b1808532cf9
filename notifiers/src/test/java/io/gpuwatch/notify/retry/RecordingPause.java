package io.gpuwatch.notify.retry;

import io.vertx.core.Future;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A pause that returns at once and remembers each requested wait, so the back-off schedule is observable. */
public final class RecordingPause implements Pause {
    /** Every wait requested, in order. */
    public final List<Long> waits = new CopyOnWriteArrayList<>();

    @Override
    public Future<Void> after(long millis) {
        waits.add(millis);
        return Future.succeededFuture();
    }
}
