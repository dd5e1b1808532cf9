package io.gpuwatch.notify.chataction;

import java.util.Arrays;
import java.util.Optional;

/**
 * What a person can do to a message's firing alerts from the chat where the page landed: acknowledge them, mark
 * them resolved, or silence them for an hour. Each button carries its {@link #id()}; the gateway reads it back
 * from the platform's callback.
 */
public enum ChatAction {
    ACKNOWLEDGE("ack", "Acknowledge"),
    RESOLVE("resolve", "Resolve"),
    SILENCE("silence", "Silence 1h");

    private final String id;
    private final String label;

    ChatAction(String id, String label) {
        this.id = id;
        this.label = label;
    }

    /** The short name a button carries, e.g. {@code ack}. */
    public String id() {
        return id;
    }

    /** The button's text. */
    public String label() {
        return label;
    }

    /** The action named {@code id}, if it is one. */
    public static Optional<ChatAction> of(String id) {
        return Arrays.stream(values()).filter(a -> a.id.equals(id)).findFirst();
    }
}
