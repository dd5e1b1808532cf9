package io.gpuwatch.probe.attribution;

import java.util.Map;

/**
 * The operator's mapping from pods, Slurm jobs and containers to attributions (the labels file, see
 * docs/attribution.md), plus defaults and the pod-label keys used with a {@link PodLabelSource}.
 *
 * @param pods       by pod UID, dashed and lower case
 * @param slurmJobs  by job id
 * @param containers by container-id prefix, lower-case hex; the longest matching prefix wins
 */
public record Labels(Map<String, Attribution> pods, Map<String, Attribution> slurmJobs,
                     Map<String, Attribution> containers, Attribution defaults, PodLabelKeys podLabels) {
    private static final Labels EMPTY = new Labels(Map.of(), Map.of(), Map.of(), Attribution.NONE,
            PodLabelKeys.DEFAULT);

    public Labels {
        pods = Map.copyOf(pods);
        slurmJobs = Map.copyOf(slurmJobs);
        containers = Map.copyOf(containers);
    }

    /** No mapping: what a probe without a labels file uses. */
    public static Labels empty() {
        return EMPTY;
    }

    Attribution pod(String uid) {
        return uid == null ? Attribution.NONE : pods.getOrDefault(uid, Attribution.NONE);
    }

    Attribution slurmJob(String id) {
        return id == null ? Attribution.NONE : slurmJobs.getOrDefault(id, Attribution.NONE);
    }

    Attribution container(String id) {
        if (id == null) {
            return Attribution.NONE;
        }
        String best = null;
        for (String prefix : containers.keySet()) {
            if (id.startsWith(prefix) && (best == null || prefix.length() > best.length())) {
                best = prefix;
            }
        }
        return best == null ? Attribution.NONE : containers.get(best);
    }
}
