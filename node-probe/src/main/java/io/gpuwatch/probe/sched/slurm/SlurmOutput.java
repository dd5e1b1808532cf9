package io.gpuwatch.probe.sched.slurm;

/**
 * The three JSON answers one Slurm reading is made of, each with where it came from (a file, a command line).
 *
 * @param sacct null where accounting is not read (no slurmdbd): preemptions are then not reported
 */
public record SlurmOutput(Part squeue, Part sacct, Part nodes) {
    /** One answer and its source, for error messages. */
    public record Part(String source, String json) {
    }
}
