package io.gpuwatch.protocol;

import java.util.List;

/** A task as the scheduler sees it: who owns it and which cards it holds. */
public record SchedTask(String task, String owner, String business, List<String> cards, String state,
                        Integer requestedCards) {
    public SchedTask {
        cards = List.copyOf(cards);
    }
}
