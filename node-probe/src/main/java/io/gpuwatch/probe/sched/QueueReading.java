package io.gpuwatch.probe.sched;

import io.gpuwatch.protocol.SchedTask;

import java.util.List;

/**
 * What a scheduler adapter read about one queue (partition, pool) at one instant, before the figures of a
 * {@code sched} frame are computed from it ({@link QueueFigures}).
 *
 * @param preemptions       tasks preempted or requeued since the producer started, or -1 when the source does not say
 * @param requestedMemBytes device memory the queue's tasks asked for, or -1 when the source does not say
 */
public record QueueReading(String queue, List<Job> jobs, List<NodeCards> nodes, long preemptions,
                           long requestedMemBytes) {
    public QueueReading {
        jobs = List.copyOf(jobs);
        nodes = List.copyOf(nodes);
    }

    /**
     * One job (Slurm job, Kubernetes pod) as the scheduler sees it.
     *
     * @param pending      true while it waits for cards
     * @param cardsPerNode cards it needs on each node it runs on (its shape, for fragmentation)
     * @param nodeCount    nodes it asks for (≥ 1)
     * @param submittedMs  when it entered the queue, epoch ms, or 0 when unknown
     * @param cards        uuids of the cards it holds, where the scheduler names them
     * @param outcome      how it ended ({@link SchedTask#OUTCOMES}); null while it waits or runs
     * @param model        the model it declares it runs, or null
     */
    public record Job(String task, String owner, String business, String state, boolean pending, int cardsPerNode,
                      int nodeCount, long submittedMs, List<String> cards, String outcome, SchedTask.Model model) {
        public Job {
            cards = List.copyOf(cards);
        }

        /** A job that waits or runs, without a declared model. */
        public Job(String task, String owner, String business, String state, boolean pending, int cardsPerNode,
                   int nodeCount, long submittedMs, List<String> cards) {
            this(task, owner, business, state, pending, cardsPerNode, nodeCount, submittedMs, cards, null, null);
        }

        /** It has ended: it holds and asks for nothing any more, and is listed only for how it ended. */
        public boolean ended() {
            return outcome != null;
        }

        /** Cards it asks for in all. */
        public int requestedCards() {
            return cardsPerNode * nodeCount;
        }
    }

    /**
     * The cards of one node of the queue.
     *
     * @param schedulable false when the scheduler places nothing there (drained, down): its free cards are not free
     * @param reason      why it is not schedulable, as the scheduler says it; null when schedulable or not given
     */
    public record NodeCards(String node, int total, int allocated, boolean schedulable, String reason) {
        /** Cards a new job could get here now. */
        public int free() {
            return schedulable ? Math.max(0, total - allocated) : 0;
        }
    }
}
