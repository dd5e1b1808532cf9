package io.gpuwatch.probe.attribution;

import io.gpuwatch.protocol.ProcessInfo;

/** Says which task, owner and line of business a compute process on a card works for. */
@FunctionalInterface
public interface ProcessAttributor {
    /**
     * The process as the protocol carries it: pid and memory as given, attribution fields null where unknown.
     * Never throws; a process that cannot be inspected comes back unattributed.
     */
    ProcessInfo attribute(long pid, Long usedMemBytes);
}
