package io.gpuwatch.probe.attribution;

/** Who a process works for; a null field is unknown. */
public record Attribution(String task, String owner, String business) {
    /** Nothing known. */
    public static final Attribution NONE = new Attribution(null, null, null);

    /** This attribution with each unknown field taken from {@code other}. */
    public Attribution orElse(Attribution other) {
        if (other == null || complete()) {
            return this;
        }
        return new Attribution(task != null ? task : other.task, owner != null ? owner : other.owner,
                business != null ? business : other.business);
    }

    /** True when all three fields are known, so no later source can add anything. */
    public boolean complete() {
        return task != null && owner != null && business != null;
    }
}
