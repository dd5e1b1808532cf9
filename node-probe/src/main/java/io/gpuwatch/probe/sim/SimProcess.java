package io.gpuwatch.probe.sim;

/** A compute process on a simulated card; {@code idleHold} ones keep their memory but launch no kernels. */
final class SimProcess {
    final long pid;
    final String task;
    final String owner;
    final String business;
    final Workload workload;
    final boolean idleHold;
    final long startedAt;
    final double targetBytes;
    double memBytes;
    /** How long the process loads and compiles, at low utilisation, before it warms up. */
    long rampMs;

    SimProcess(long pid, String task, String owner, String business, Workload workload, boolean idleHold,
               long startedAt, double targetBytes, double memBytes) {
        this.pid = pid;
        this.task = task;
        this.owner = owner;
        this.business = business;
        this.workload = workload;
        this.idleHold = idleHold;
        this.startedAt = startedAt;
        this.targetBytes = targetBytes;
        this.memBytes = memBytes;
    }
}
