package io.gpuwatch.gateway.store;

/**
 * One scheduler queue at one sampling instant of the usage history, standing for the {@code spanMs} before
 * {@code at}: its latest report's waiting tasks, the cards those tasks requested, its wait figures and its
 * allocation. NaN where the report said nothing.
 */
public record QueueRow(long at, long spanMs, String queue, double pending, double pendingCards, double waitP50s,
                       double waitMaxS, double cardsAllocated, double cardsTotal) {
}
