package io.gpuwatch.gateway.delivery;

import io.gpuwatch.gateway.group.Flush;
import io.gpuwatch.notify.Receiver;
import io.vertx.core.Future;

/** How the dispatcher hands a due group to its receiver: straight away, or through the durable outbox. */
public interface Delivery {
    /**
     * Hands {@code flush} on to {@code receiver}; the future succeeds once it is delivered (direct) or safely
     * queued for delivery ({@link OutboxSender}), and fails when neither could be done.
     */
    Future<Void> deliver(Receiver receiver, Flush flush);

    /** Sends through the receiver at once, remembering nothing: a gateway without a store. */
    Delivery DIRECT = (receiver, flush) -> flush.reason() == Flush.Reason.REFRESH ? receiver.resend(flush.alerts())
            : receiver.send(flush.group(), flush.alerts(), null);
}
