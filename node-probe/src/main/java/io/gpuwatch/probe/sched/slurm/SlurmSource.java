package io.gpuwatch.probe.sched.slurm;

import io.gpuwatch.probe.sched.DrainNotices;
import io.gpuwatch.probe.sched.SchedInputError;
import io.gpuwatch.probe.sched.SchedProducer;
import io.gpuwatch.probe.sched.SchedSource;
import io.gpuwatch.protocol.Frame;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Slurm as a {@link SchedSource}: runs {@code squeue}, {@code sacct} and {@code scontrol} with {@code --json} (from
 * a configurable directory) or reads their saved output from files, on a worker thread, and reads it with
 * {@link SlurmReader}.
 */
public final class SlurmSource implements SchedSource {
    /** The commands run, without the directory they are found in. */
    static final List<String> SQUEUE = List.of("squeue", "--all", "--json");
    static final List<String> SACCT = List.of("sacct", "--json", "--allusers", "--duplicates", "--starttime",
            "now-1hours");
    static final List<String> SCONTROL = List.of("scontrol", "show", "node", "--json");
    /** File names of the saved-output mode. */
    public static final String SQUEUE_FILE = "squeue.json";
    public static final String SACCT_FILE = "sacct.json";
    public static final String NODES_FILE = "scontrol-nodes.json";
    private static final long COMMAND_TIMEOUT_S = 60;

    private final Vertx vertx;
    private final Path binDir;
    private final Path filesDir;
    private final boolean accounting;
    private final SlurmReader reader = new SlurmReader();
    private final DrainNotices drains = new DrainNotices();

    private SlurmSource(Vertx vertx, Path binDir, Path filesDir, boolean accounting) {
        this.vertx = vertx;
        this.binDir = binDir;
        this.filesDir = filesDir;
        this.accounting = accounting;
    }

    /** Runs the commands, found in {@code binDir} (null: on the PATH); without {@code accounting} no sacct. */
    public static SlurmSource commands(Vertx vertx, Path binDir, boolean accounting) {
        return new SlurmSource(vertx, binDir, null, accounting);
    }

    /** Reads squeue.json, scontrol-nodes.json and, when present, sacct.json from {@code dir} at every read. */
    public static SlurmSource files(Vertx vertx, Path dir) {
        return new SlurmSource(vertx, null, dir, true);
    }

    @Override
    public String describe() {
        return filesDir != null ? "slurm (files in " + filesDir + ")"
                : "slurm (squeue, " + (accounting ? "sacct, " : "") + "scontrol"
                + (binDir == null ? "" : " in " + binDir) + ")";
    }

    @Override
    public Future<List<Frame>> read(long nowMs) {
        // the commands block, the disk too, and reading a large cluster's JSON takes seconds: all on a worker;
        // ordered, so one read's state (counted preemptions, drained nodes) is seen by the next
        return vertx.executeBlocking(() -> SchedProducer.frames(reader.read(output(), nowMs), drains, nowMs), true);
    }

    private SlurmOutput output() throws IOException, SchedInputError, InterruptedException {
        if (filesDir != null) {
            SlurmOutput.Part sacct = null;
            try {
                sacct = file(SACCT_FILE);
            } catch (NoSuchFileException absent) {
                // accounting is optional: without it preemptions go unreported
            }
            return new SlurmOutput(file(SQUEUE_FILE), sacct, file(NODES_FILE));
        }
        return new SlurmOutput(run(SQUEUE), accounting ? run(SACCT) : null, run(SCONTROL));
    }

    private SlurmOutput.Part file(String name) throws IOException {
        Path p = filesDir.resolve(name);
        return new SlurmOutput.Part(p.toString(), Files.readString(p, StandardCharsets.UTF_8));
    }

    private SlurmOutput.Part run(List<String> command) throws IOException, SchedInputError, InterruptedException {
        List<String> argv = new ArrayList<>(command);
        if (binDir != null) {
            argv.set(0, binDir.resolve(command.get(0)).toString());
        }
        String shown = String.join(" ", argv);
        Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.PIPE).start();
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
        byte[] stdout = p.getInputStream().readAllBytes();
        if (!p.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new SchedInputError(shown, "did not finish within " + COMMAND_TIMEOUT_S + " s");
        }
        if (p.exitValue() != 0) {
            String why = new String(err.join(), StandardCharsets.UTF_8).strip();
            int nl = why.indexOf('\n');
            throw new SchedInputError(shown, "exited with " + p.exitValue()
                    + (why.isEmpty() ? "" : ": " + (nl < 0 ? why : why.substring(0, nl))));
        }
        return new SlurmOutput.Part(shown, new String(stdout, StandardCharsets.UTF_8));
    }

    private static byte[] drain(InputStream in) {
        try {
            return in.readAllBytes();
        } catch (IOException e) {
            return new byte[0];
        }
    }
}
