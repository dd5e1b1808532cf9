package io.gpuwatch.gateway.exposition;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The gateway process's own figures under the names Prometheus's client libraries use ({@code process_*} as
 * the Go and Java clients write them, {@code jvm_*} as client_java's hotspot exports do), so the usual process
 * and JVM dashboards work. Reads {@code /proc}: call it off the event loop.
 */
public final class ProcessFigures {
    private static final Path STATUS = Path.of("/proc/self/status");
    private static final Path FDS = Path.of("/proc/self/fd");
    private static final Path LIMITS = Path.of("/proc/self/limits");

    private ProcessFigures() {
    }

    /** Writes the process and JVM families; a figure this system does not offer (no /proc) is left out. */
    public static void write(TextFormat text) {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun && sun.getProcessCpuTime() >= 0) {
            text.family("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.")
                    .sample("process_cpu_seconds_total", sun.getProcessCpuTime() / 1e9);
        }
        long rss = residentBytes();
        if (rss >= 0) {
            text.family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.")
                    .sample("process_resident_memory_bytes", rss);
        }
        long open = openFds();
        if (open >= 0) {
            text.family("process_open_fds", "gauge", "Number of open file descriptors.")
                    .sample("process_open_fds", open);
        }
        long max = maxFds();
        if (max >= 0) {
            text.family("process_max_fds", "gauge", "Maximum number of open file descriptors.")
                    .sample("process_max_fds", max);
        }
        text.family("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.")
                .sample("process_start_time_seconds", ManagementFactory.getRuntimeMXBean().getStartTime() / 1000.0);

        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        MemoryUsage nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage();
        text.family("jvm_memory_used_bytes", "gauge", "Used bytes of a given JVM memory area.")
                .sample("jvm_memory_used_bytes", TextFormat.labels("area", "heap"), heap.getUsed())
                .sample("jvm_memory_used_bytes", TextFormat.labels("area", "nonheap"), nonHeap.getUsed());
        if (heap.getMax() >= 0) {
            // the non-heap area has no maximum on most JVMs
            text.family("jvm_memory_max_bytes", "gauge", "Max (bytes) of a given JVM memory area.")
                    .sample("jvm_memory_max_bytes", TextFormat.labels("area", "heap"), heap.getMax());
        }
        List<GarbageCollectorMXBean> gcs = ManagementFactory.getGarbageCollectorMXBeans();
        // a summary without quantiles, as client_java writes it, so its _sum and _count are what dashboards read
        text.family("jvm_gc_collection_seconds", "summary", "Time spent in a given JVM garbage collector in seconds.");
        for (GarbageCollectorMXBean gc : gcs) {
            String labels = TextFormat.labels("gc", gc.getName());
            text.sample("jvm_gc_collection_seconds_count", labels, Math.max(0, gc.getCollectionCount()))
                    .sample("jvm_gc_collection_seconds_sum", labels, Math.max(0, gc.getCollectionTime()) / 1000.0);
        }
        text.family("jvm_threads_current", "gauge", "Current thread count of a JVM.")
                .sample("jvm_threads_current", ManagementFactory.getThreadMXBean().getThreadCount());
    }

    /** VmRSS of /proc/self/status in bytes, or -1 without it. */
    static long residentBytes() {
        try {
            for (String line : Files.readAllLines(STATUS)) {
                if (line.startsWith("VmRSS:")) {
                    // "VmRSS:	  123456 kB"
                    String[] parts = line.substring(6).strip().split("\\s+");
                    return Long.parseLong(parts[0]) * (parts.length > 1 && parts[1].equalsIgnoreCase("kB") ? 1024 : 1);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    private static long openFds() {
        try (Stream<Path> fds = Files.list(FDS)) {
            return fds.count();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The soft limit of "Max open files" in /proc/self/limits, or -1 without it or when unlimited. */
    private static long maxFds() {
        try {
            for (String line : Files.readAllLines(LIMITS)) {
                if (line.startsWith("Max open files")) {
                    String soft = line.substring("Max open files".length()).strip().split("\\s+")[0];
                    return soft.equals("unlimited") ? -1 : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
