package io.gpuwatch.protocol;

import java.util.List;
import java.util.Set;

/**
 * A task as the scheduler sees it: who owns it, which cards it holds, what it asked for, what model it runs and,
 * once it has ended, how. The fields after {@code requestedCards} were added within v1; older producers leave
 * them out, which reads as unknown.
 */
public record SchedTask(String task, String owner, String business, List<String> cards, String state,
                        Integer requestedCards, Long requestedMemBytes, String outcome, Model model) {
    /** The outcomes a task may report once it has ended. */
    public static final Set<String> OUTCOMES = Set.of("succeeded", "failed", "cancelled", "preempted");

    public SchedTask {
        cards = List.copyOf(cards);
    }

    /** A task as producers before the business fields sent it. */
    public SchedTask(String task, String owner, String business, List<String> cards, String state,
                     Integer requestedCards) {
        this(task, owner, business, cards, state, requestedCards, null, null, null);
    }

    /**
     * The model a task runs, for its effective compute: {@code params} parameters, trained or served
     * ({@code workload}), at {@code precision}; {@code flopsPerSample} where a training job knows the FLOPs of one
     * sample (null otherwise).
     */
    public record Model(double params, String workload, String precision, Double flopsPerSample) {
        /** The workloads a model may declare; the FLOPs per token follow from it (2·N served, 6·N trained). */
        public static final Set<String> WORKLOADS = Set.of("inference", "training");
        /** The precisions a model may declare, the keys of the gateway's peak FLOP/s table. */
        public static final List<String> PRECISIONS = List.of("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8",
                "fp4");
        /** What a model that names no precision runs at. */
        public static final String DEFAULT_PRECISION = "bf16";
        /** What a model that names no workload does. */
        public static final String DEFAULT_WORKLOAD = "inference";

        /** Model FLOPs per token: 6·N for training (forward and backward), 2·N for inference (forward only). */
        public double flopsPerToken() {
            return ("training".equals(workload) ? 6 : 2) * params;
        }
    }
}
