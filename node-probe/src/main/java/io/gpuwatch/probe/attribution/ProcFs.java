package io.gpuwatch.probe.attribution;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/** Reads the few /proc files attribution needs; whatever cannot be read comes back empty, never thrown. */
final class ProcFs {
    // environ is capped by the kernel's ARG_MAX-sized limits; this only guards against a strange procfs
    private static final int MAX_BYTES = 1 << 20;
    private static final int START_TIME_FIELD = 22;

    private final Path root;

    ProcFs(Path root) {
        this.root = root;
    }

    /** Field 22 of {@code stat}: the process start time in clock ticks since boot, which tells reused pids apart. */
    OptionalLong startTime(long pid) {
        String stat = read(pid, "stat");
        if (stat == null) {
            return OptionalLong.empty();
        }
        // the command name (field 2) is in parentheses and may itself hold spaces and parentheses
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return OptionalLong.empty();
        }
        String[] rest = stat.substring(close + 1).strip().split("\\s+");
        int index = START_TIME_FIELD - 3;
        if (rest.length <= index) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(rest[index]));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** What the cgroup path and environment of the process say; {@link ProcessOrigin#UNKNOWN} when unreadable. */
    ProcessOrigin origin(long pid) {
        String cgroup = read(pid, "cgroup");
        Cgroups.Match m = cgroup == null ? new Cgroups.Match(null, null, null) : Cgroups.parse(cgroup);
        Map<String, String> env = environ(pid);
        String job = m.slurmJobId() != null ? m.slurmJobId() : nonEmpty(env.get("SLURM_JOB_ID"));
        Attribution declared = new Attribution(nonEmpty(env.get("GPUWATCH_TASK")), nonEmpty(env.get("GPUWATCH_OWNER")),
                nonEmpty(env.get("GPUWATCH_BUSINESS")));
        return new ProcessOrigin(m.podUid(), m.containerId(), job, nonEmpty(env.get("SLURM_JOB_USER")), declared);
    }

    /** The NUL-separated {@code environ} as a map; empty when unreadable (another user's process, no hostPID). */
    Map<String, String> environ(long pid) {
        String text = read(pid, "environ");
        Map<String, String> env = new HashMap<>();
        if (text == null) {
            return env;
        }
        for (String entry : text.split("\0")) {
            int eq = entry.indexOf('=');
            if (eq > 0) {
                env.putIfAbsent(entry.substring(0, eq), entry.substring(eq + 1));
            }
        }
        return env;
    }

    private String read(long pid, String file) {
        try (InputStream in = Files.newInputStream(root.resolve(Long.toString(pid)).resolve(file))) {
            return new String(in.readNBytes(MAX_BYTES), StandardCharsets.UTF_8);
        } catch (IOException | SecurityException | UnsupportedOperationException e) {
            return null;
        }
    }

    private static String nonEmpty(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
