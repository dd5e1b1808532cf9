package io.gpuwatch.probe.attribution;

import io.gpuwatch.protocol.ProcessInfo;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Attributes processes from their /proc cgroup path and environment (see docs/attribution.md). Each field comes from
 * the first source that has it: the process's own {@code GPUWATCH_*} variables, the labels file's container entry,
 * its pod entry, the pod's Kubernetes labels, the labels file's Slurm job entry, the Slurm job itself
 * ({@code slurm-<id>}, {@code SLURM_JOB_USER}), then the labels file's defaults.
 * Results are kept per pid and process start time for {@code cacheTtl}, so a reused pid is looked at afresh.
 * Reads /proc on the calling thread: call it off the event loop. Thread-safe.
 */
public final class Attributor implements ProcessAttributor {
    private final ProcFs proc;
    private final Supplier<Labels> labels;
    private final PodLabelSource podLabels;
    private final LongSupplier clockMs;
    private final long ttlMs;
    private final Map<Long, Cached> cache = new HashMap<>();
    private long prunedAt;

    private record Cached(long startTime, long at, Attribution attribution) {
    }

    private Attributor(Builder b) {
        this.proc = new ProcFs(b.procRoot);
        this.labels = b.labels;
        this.podLabels = b.podLabels;
        this.clockMs = b.clockMs;
        this.ttlMs = b.cacheTtl.toMillis();
        this.prunedAt = clockMs.getAsLong();
    }

    /** An attributor reading /proc, with no labels file and no pod labels, caching for 10 s. */
    public static Builder builder(LongSupplier clockMs) {
        return new Builder(clockMs);
    }

    @Override
    public synchronized ProcessInfo attribute(long pid, Long usedMemBytes) {
        long now = clockMs.getAsLong();
        prune(now);
        OptionalLong start = proc.startTime(pid);
        Cached hit = cache.get(pid);
        Attribution a;
        if (start.isPresent() && hit != null && hit.startTime == start.getAsLong() && now - hit.at < ttlMs) {
            a = hit.attribution;
        } else {
            a = resolve(start.isPresent() ? proc.origin(pid) : ProcessOrigin.UNKNOWN);
            if (start.isPresent()) {
                cache.put(pid, new Cached(start.getAsLong(), now, a));
            } else {
                cache.remove(pid);
            }
        }
        return new ProcessInfo(pid, usedMemBytes, a.task(), a.owner(), a.business());
    }

    private Attribution resolve(ProcessOrigin o) {
        Labels l = labels.get();
        Attribution a = o.declared()
                .orElse(l.container(o.containerId()))
                .orElse(l.pod(o.podUid()));
        if (podLabels != null && o.podUid() != null && !a.complete()) {
            a = a.orElse(l.podLabels().read(podLabels.labelsOf(o.podUid())));
        }
        if (o.slurmJobId() != null) {
            a = a.orElse(l.slurmJob(o.slurmJobId()))
                    .orElse(new Attribution("slurm-" + o.slurmJobId(), o.slurmUser(), null));
        }
        return a.orElse(l.defaults());
    }

    private void prune(long now) {
        if (now - prunedAt < ttlMs) {
            return;
        }
        prunedAt = now;
        for (Iterator<Cached> it = cache.values().iterator(); it.hasNext(); ) {
            if (now - it.next().at >= ttlMs) {
                it.remove();
            }
        }
    }

    /** Settings of an {@link Attributor}. */
    public static final class Builder {
        private final LongSupplier clockMs;
        private Path procRoot = Path.of("/proc");
        private Supplier<Labels> labels = Labels::empty;
        private PodLabelSource podLabels;
        private Duration cacheTtl = Duration.ofSeconds(10);

        private Builder(LongSupplier clockMs) {
            this.clockMs = Objects.requireNonNull(clockMs);
        }

        /** Where the host's /proc is mounted (a container with hostPID sees it at /proc; else e.g. /host/proc). */
        public Builder procRoot(Path procRoot) {
            this.procRoot = Objects.requireNonNull(procRoot);
            return this;
        }

        /** The labels mapping in force, asked at each lookup; typically a {@link LabelsWatch}. */
        public Builder labels(Supplier<Labels> labels) {
            this.labels = Objects.requireNonNull(labels);
            return this;
        }

        /** Kubernetes pod labels, read with the labels file's {@code podLabels} keys. */
        public Builder podLabels(PodLabelSource podLabels) {
            this.podLabels = Objects.requireNonNull(podLabels);
            return this;
        }

        /** How long one process's attribution is reused before /proc and the mappings are read again. */
        public Builder cacheTtl(Duration cacheTtl) {
            if (cacheTtl.isNegative()) {
                throw new IllegalArgumentException("cacheTtl must not be negative, got " + cacheTtl);
            }
            this.cacheTtl = cacheTtl;
            return this;
        }

        public Attributor build() {
            return new Attributor(this);
        }
    }
}
