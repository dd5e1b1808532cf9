package io.gpuwatch.gateway.state;

import java.util.List;

/**
 * A task, a replica (a task's part on {@code node}) or a scheduler queue as a checkpoint keeps it: whom it belongs
 * to as last heard (null where unknown or not the kind's) and a copy of each of its own windows (application or
 * scheduler readings; card metrics are its members', kept with the cards).
 */
public record ScopeImage(Kind kind, String name, String node, String owner, String business, String queue,
                         List<CardImage.Window> windows) {
    /** Which scope an image is of. */
    public enum Kind { TASK, REPLICA, QUEUE }

    public ScopeImage {
        windows = List.copyOf(windows);
    }
}
