package io.gpuwatch.probe.sched;

import io.gpuwatch.protocol.Frame;
import io.vertx.core.Future;

import java.util.List;

/** One scheduler adapter: what it reads now, as {@code sched} frames (and node events), for {@link SchedProducer}. */
public interface SchedSource {
    /** What and where it reads, for logs and errors: {@code slurm (squeue, sacct, scontrol in /usr/bin)}. */
    String describe();

    /**
     * Reads every queue once. Fails with a {@link SchedInputError} that names the place when the scheduler's
     * answer cannot be read, or with the I/O error when it cannot be reached.
     */
    Future<List<Frame>> read(long nowMs);

    /** Starts what runs between reads (a watch); most sources have nothing to start. */
    default Future<Void> start() {
        return Future.succeededFuture();
    }

    /** Stops what {@link #start()} started. */
    default Future<Void> close() {
        return Future.succeededFuture();
    }
}
