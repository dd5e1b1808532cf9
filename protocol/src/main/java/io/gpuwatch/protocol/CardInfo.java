package io.gpuwatch.protocol;

/** Static facts about one card, sent in {@code hello}; optional facts are null when unknown. */
public record CardInfo(String uuid, int index, String name, String pciBusId, Long memTotalBytes,
                       Double powerLimitW, Integer maxSmClockMHz, Boolean migMode) {
}
