package io.gpuwatch.probe.load;

import java.util.List;

/**
 * The parts of one simulated node's frames that never change during a run, encoded once.
 *
 * @param cardHeads per card, {@code {"uuid":"GPU-…"} } without the closing brace
 * @param processTail what follows a card's process pid, up to and including the end of its process list
 * @param appHead the {@code app} frame's fields after {@code ts}: task, business, source
 */
record NodeTexts(int index, String name, String hello, List<String> uuids, String[] cardHeads, String processTail,
                 String appHead) {
}
