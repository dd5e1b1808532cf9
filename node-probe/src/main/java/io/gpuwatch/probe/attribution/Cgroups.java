package io.gpuwatch.probe.attribution;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads pod, container and Slurm job out of a {@code /proc/<pid>/cgroup} file, v1 ({@code N:controllers:/path}
 * lines) or v2 ({@code 0::/path}); the first line that names a thing wins.
 */
final class Cgroups {
    // systemd driver: kubepods-burstable-pod<uid_with_underscores>.slice, kubepods-pod<uid>.slice (Guaranteed);
    // cgroupfs driver: pod<uid>
    private static final Pattern POD = Pattern.compile(
            "(?:kubepods(?:-[a-z]+)?-)?pod([0-9a-fA-F]{8}[-_][0-9a-fA-F]{4}[-_][0-9a-fA-F]{4}[-_][0-9a-fA-F]{4}"
                    + "[-_][0-9a-fA-F]{12})(?:\\.slice)?");
    // containerd, CRI-O, Docker and Podman scopes, or the bare id of the cgroupfs driver and of /docker/<id>
    private static final Pattern CONTAINER = Pattern.compile(
            "(?:cri-containerd-|crio-|docker-|libpod-)?([0-9a-f]{64})(?:\\.scope)?");
    private static final Pattern JOB = Pattern.compile("job_(\\d+)");

    /** What the cgroup file names; fields are null when absent. */
    record Match(String podUid, String containerId, String slurmJobId) {
    }

    private Cgroups() {
    }

    static Match parse(String text) {
        String pod = null;
        String container = null;
        String job = null;
        for (String line : text.split("\n")) {
            int first = line.indexOf(':');
            int second = first < 0 ? -1 : line.indexOf(':', first + 1);
            if (second < 0) {
                continue;
            }
            String[] segments = line.substring(second + 1).strip().split("/");
            boolean kubepods = false;
            boolean slurm = false;
            String lineContainer = null;
            for (String s : segments) {
                kubepods |= s.startsWith("kubepods");
                Matcher m;
                if (kubepods && pod == null && (m = POD.matcher(s)).matches()) {
                    pod = m.group(1).replace('_', '-').toLowerCase();
                } else if ((m = CONTAINER.matcher(s)).matches()) {
                    // the innermost container segment wins: nested containers (docker-in-docker) come later
                    lineContainer = m.group(1);
                } else if (slurm && job == null && (m = JOB.matcher(s)).matches()) {
                    job = m.group(1);
                }
                slurm |= s.contains("slurm");
            }
            if (container == null) {
                container = lineContainer;
            }
        }
        return new Match(pod, container, job);
    }
}
