package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.silence.Silence;
import io.gpuwatch.gateway.store.Acknowledgement;
import io.gpuwatch.gateway.store.AuditEntry;
import io.gpuwatch.gateway.store.Store;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;

import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * How a change made over the API is kept: with its audit entry, in one store transaction before it is
 * answered, and then shared with the cluster's peers.
 */
final class Changes {
    private static final Logger LOG = Logger.getLogger(Changes.class.getName());

    private final ApiHost gateway;

    Changes(ApiHost gateway) {
        this.gateway = gateway;
    }

    /**
     * Runs {@code write} and records {@code audit} as one transaction on the store's writer thread when the
     * gateway has a store; without one, logs the audit entry and succeeds at once. The answer waits for it, so
     * what a client was told is kept is on disk, and so is who did it.
     */
    Future<Void> stored(AuditEntry audit, Consumer<Store> write) {
        if (gateway.store().isEmpty()) {
            LOG.info("audit: " + audit.who() + " from " + audit.remote() + ": " + audit.action() + " "
                    + audit.target() + " " + audit.detail());
            return Future.succeededFuture();
        }
        return gateway.store().get().run(s -> {
            write.accept(s);
            return s.audit().add(audit);
        }).mapEmpty();
    }

    /** The audit entry of {@code action} on {@code target} by the caller of {@code ctx}, now. */
    AuditEntry audit(RoutingContext ctx, String action, String target, String detail) {
        Caller c = AccessGuard.caller(ctx);
        return new AuditEntry(0, gateway.clock().instant(), c.name(), action, target, detail, c.remote());
    }

    /** Tells the gateway's peers of a silence change its own store has kept. */
    void share(Silence s) {
        gateway.cluster().ifPresent(c -> c.share(s));
    }

    /** Tells the gateway's peers of an acknowledgement its own store has kept. */
    void share(Acknowledgement a) {
        gateway.cluster().ifPresent(c -> c.share(a));
    }
}
