package io.gpuwatch.probe.attribution;

/**
 * What a process's cgroup path and environment say about where it runs; a null field was not found.
 *
 * @param podUid      Kubernetes pod UID, dashed and lower case
 * @param containerId full 64-hex container id
 * @param slurmJobId  Slurm job id, from the cgroup path or else {@code SLURM_JOB_ID}
 * @param slurmUser   {@code SLURM_JOB_USER} of the environment
 * @param declared    what the process declares itself through {@code GPUWATCH_TASK/OWNER/BUSINESS}
 */
record ProcessOrigin(String podUid, String containerId, String slurmJobId, String slurmUser, Attribution declared) {
    static final ProcessOrigin UNKNOWN = new ProcessOrigin(null, null, null, null, Attribution.NONE);
}
