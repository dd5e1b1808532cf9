package io.gpuwatch.cli.alerting;

import io.gpuwatch.gateway.route.RoutingConfig;
import io.gpuwatch.notify.Receiver;
import io.gpuwatch.rules.Diagnostic;

import java.util.List;

/**
 * An alerting file as read: its receivers, its routing (null when anything is wrong), whether the file has a
 * {@code receivers:} section at all, and every diagnostic in file order.
 */
public record AlertingLoad(List<ReceiverSpec> receivers, RoutingConfig routing, boolean hasReceivers,
                           List<Diagnostic> diagnostics) {
    public AlertingLoad {
        receivers = List.copyOf(receivers);
        diagnostics = List.copyOf(diagnostics);
    }

    /** True when there is no error, so the receivers can be made and the routing used. */
    public boolean ok() {
        return routing != null && errors().isEmpty();
    }

    /** The errors only. */
    public List<Diagnostic> errors() {
        return diagnostics.stream().filter(d -> d.level() == Diagnostic.Level.ERROR).toList();
    }

    /** Makes every receiver, in file order. */
    public List<Receiver> create(Wiring wiring) {
        if (!ok()) {
            throw new IllegalStateException("an alerting file with errors has no receivers to make: " + errors());
        }
        return receivers.stream().map(r -> r.create(wiring)).toList();
    }
}
