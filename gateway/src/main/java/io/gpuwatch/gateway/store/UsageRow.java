package io.gpuwatch.gateway.store;

/**
 * One task's cards of one pool and GPU model over one sampling interval of the usage history (the
 * {@code spanMs} before {@code at}). Card counts are as sampled at {@code at}; a task's request, memory request,
 * model FLOP/s and tokens, which belong to the task and not to a card, are shared out over its groups in
 * proportion to the cards (FLOP/s: to the peak) each holds. NaN stands for unknown: no price, no declared model,
 * no reading.
 *
 * @param held          cards the task holds in this pool and model (by a process or by the scheduler's listing)
 * @param busy          of them, computing ({@code gpuUtil} at least 5 %)
 * @param idle          of them, not computing ({@code gpuUtil} below 5 %); a card without a reading is neither
 * @param reclaimable   of the idle ones, those idle under this task for at least 30 minutes in a row
 * @param requestedCards the task's share of the cards its running listing requested (0 when it said nothing)
 * @param costPerHour   what the held cards cost an hour under the pricing
 * @param achievedFlops the group's share of the task's model FLOP/s
 * @param peakFlops     the peak dense FLOP/s of the held cards at the task's precision
 */
public record UsageRow(long at, long spanMs, String task, String owner, String business, String queue,
                       String workload, String pool, String model, int held, int busy, int idle, int reclaimable,
                       double requestedCards, double memRequestedBytes, double memUsedBytes, double costPerHour,
                       double achievedFlops, double peakFlops, double tokensPerSec) {
}
