package io.gpuwatch.cli.alerting;

import io.gpuwatch.notify.Receiver;

/** One receiver of an alerting file, checked, with where it was written; {@link #create} makes it. */
public record ReceiverSpec(String name, String type, String file, int line, int column, Factory factory) {
    /** Makes a receiver once its file has been checked. */
    @FunctionalInterface
    public interface Factory {
        Receiver create(Wiring wiring);
    }

    /** The receiver, over the shared client and the wiring's console. */
    public Receiver create(Wiring wiring) {
        return factory.create(wiring);
    }
}
