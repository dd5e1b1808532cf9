package io.gpuwatch.probe.nvml;

import io.gpuwatch.protocol.Sample;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures what the NVML probe costs: runs {@link NvmlProbe} at 1 s over the fake library with 8 fully featured
 * cards (18 NVLink links, GPM, processes, events registered) and prints CPU time per second and RSS, for the
 * first minute (the JVM still compiling the poll path) and for a minute once it is compiled.
 * Arguments: [seconds per phase, default 60] [cards, default 8] [NVLink links per card, default 18].
 * Not a test: run it by hand (docs/nvml.md).
 */
public final class ProbeOverhead {
    private static final int WARM_POLLS = 250;
    private static final long WARM_INTERVAL_MS = 20;
    // Linux USER_HZ, the unit of utime and stime in /proc/self/stat
    private static final double TICK_MS = 10;

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final AtomicLong samples = new AtomicLong();
    private final AtomicLong readings = new AtomicLong();

    private ProbeOverhead() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        int cards = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int links = args.length > 2 ? Integer.parseInt(args[2]) : 18;
        new ProbeOverhead().run(seconds, cards, links);
    }

    private void run(int seconds, int cards, int links) throws Exception {
        Path dir = Files.createTempDirectory("probe-overhead");
        FakeNvml.load(dir, script(cards, links));
        NvmlProbe probe = ((NvmlResult.Ok<NvmlProbe>) NvmlProbe.open(FakeNvml.LIBRARY, System::currentTimeMillis,
                NvmlCollector.UNATTRIBUTED, NvmlProbe.EVENT_WAIT_MS)).value();
        System.out.printf("%d cards, %d NVLink links each, polled every 1000 ms%n", cards, links);
        probe.start(1000, f -> {
            if (f instanceof Sample s) {
                samples.incrementAndGet();
                readings.addAndGet(s.cards().size());
            }
        });
        measure("first " + seconds + " s from start", seconds);
        probe.intervalMs(WARM_INTERVAL_MS);
        long warmed = samples.get() + WARM_POLLS;
        while (samples.get() < warmed) {
            Thread.sleep(WARM_INTERVAL_MS);
        }
        probe.intervalMs(1000);
        measure(seconds + " s after " + WARM_POLLS + " extra polls (poll path compiled)", seconds);
        probe.close();
    }

    private void measure(String phase, int seconds) throws Exception {
        long cpu0 = processCpuMs();
        long poll0 = threadCpuNs("gpuwatch-nvml-poll");
        long events0 = threadCpuNs("gpuwatch-nvml-events");
        long samples0 = samples.get();
        long readings0 = readings.get();
        long calls0 = FakeNvml.calls("nvmlDeviceGetNvLinkErrorCounter");
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        double wallS = (System.nanoTime() - t0) / 1e9;
        long cpuMs = processCpuMs() - cpu0;
        double pollMs = (threadCpuNs("gpuwatch-nvml-poll") - poll0) / 1e6;
        double eventsMs = (threadCpuNs("gpuwatch-nvml-events") - events0) / 1e6;
        long polled = samples.get() - samples0;

        System.out.printf("%s: %.1f s, %d samples, %d card readings, %d NVLink counter calls%n", phase, wallS,
                polled, readings.get() - readings0, FakeNvml.calls("nvmlDeviceGetNvLinkErrorCounter") - calls0);
        System.out.printf("  process CPU (utime+stime): %d ms = %.2f ms/s = %.2f %% of one core%n", cpuMs,
                cpuMs / wallS, cpuMs / wallS / 10);
        System.out.printf("  poller thread %.2f ms/s (%.3f ms per poll), event thread %.3f ms/s%n", pollMs / wallS,
                polled == 0 ? 0 : pollMs / polled, eventsMs / wallS);
        System.out.printf("  RSS %s, peak %s%n", status("VmRSS"), status("VmHWM"));
    }

    private static String script(int cards, int links) {
        int[] buses = {0x1B, 0x43, 0x52, 0x61, 0x9D, 0xC3, 0xD1, 0xDF};
        StringBuilder s = new StringBuilder("driver 580.95.05\nnvml 13.580.95.05\ncards ").append(cards).append('\n');
        for (int i = 0; i < cards; i++) {
            String c = "card " + i + " ";
            s.append(c).append(String.format("uuid GPU-fake-%04d-4e2a-9c1d-7b3f05a1c%03d%n", i + 1, i + 1))
                    .append(c).append("name NVIDIA H100 80GB HBM3\n")
                    .append(c).append(String.format("pci 00000000:%02X:00.0%n", buses[i % buses.length] + i / 8))
                    .append(c).append("mem.total 85520809984\n").append(c).append("mem.reserved 560988160\n")
                    .append(c).append("mem.used ").append(61_203_283_968L + i * 4096L).append('\n')
                    .append(c).append("power.limit 700000\n").append(c).append("clock.sm.max 1980\n")
                    .append(c).append("mig 0\n").append(c).append("util.gpu ").append(90 + i % 8).append('\n')
                    .append(c).append("util.mem 41\n").append(c).append("temp ").append(60 + i).append('\n')
                    .append(c).append("temp.mem 80\n").append(c).append("power ").append(612_400 + i * 117).append('\n')
                    .append(c).append("energy 123456789012\n").append(c).append("clock.sm 1755\n")
                    .append(c).append("clock.mem 2619\n").append(c).append("pstate 0\n")
                    .append(c).append("reasons 0x4\n").append(c).append("ecc.corrected 7\n")
                    .append(c).append("ecc.uncorrected 0\n").append(c).append("retired.pending 0\n")
                    .append(c).append("remap.corr 3\n").append(c).append("remap.unc 0\n")
                    .append(c).append("remap.pending 0\n").append(c).append("remap.failed 0\n")
                    .append(c).append("pcie.tx 120034\n").append(c).append("pcie.rx 98122\n")
                    .append(c).append("pcie.replays 0\n").append(c).append("pcie.gen 5\n")
                    .append(c).append("pcie.width 16\n").append(c).append("nvlinks ").append(links).append('\n')
                    .append(c).append("nvlink.replay 0\n").append(c).append("nvlink.recovery 0\n")
                    .append(c).append("nvlink.crc.flit 0\n").append(c).append("nvlink.crc.data 0\n")
                    .append(c).append("gpm 1\n").append(c).append("gpm.sm 62.5\n")
                    .append(c).append("gpm.occupancy 31.25\n").append(c).append("gpm.tensor 44\n")
                    .append(c).append("gpm.dram 58\n").append(c).append("events 0x1B\n")
                    .append(c).append("proc ").append(4242 + i).append(" 60129542144\n")
                    .append(c).append("proc ").append(9000 + i).append(" 536870912\n");
        }
        return s.toString();
    }

    private static long processCpuMs() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        // fields after the parenthesised command name: state is field 3, utime 14, stime 15
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Math.round((Long.parseLong(f[11]) + Long.parseLong(f[12])) * TICK_MS);
    }

    private long threadCpuNs(String name) {
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().equals(name)) {
                return threads.getThreadCpuTime(info.getThreadId());
            }
        }
        return 0;
    }

    private static String status(String key) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(key + ":")) {
                long kb = Long.parseLong(line.replaceAll("\\D", ""));
                return String.format("%.1f MiB", kb / 1024.0);
            }
        }
        return "unknown";
    }
}
