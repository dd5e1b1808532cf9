package io.gpuwatch.cli;

import io.gpuwatch.probe.trace.TraceEntry;
import io.gpuwatch.probe.trace.TraceLine;
import io.gpuwatch.probe.trace.TraceReader;
import io.gpuwatch.probe.trace.TraceSink;
import io.gpuwatch.protocol.trace.TraceNames;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Callable;

/** {@code gpuwatch trace}: work with recorded traces. */
@Command(name = "trace", mixinStandardHelpOptions = true, description = "Work with recorded traces.",
        subcommands = TraceCommand.Convert.class)
final class TraceCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Rewrites a trace in the form its new name asks for: JSON lines or binary, gzipped or not. */
    @Command(name = "convert", mixinStandardHelpOptions = true,
            description = "Rewrite a trace in the form OUT's name asks for: .gwt or .gwt.gz binary (protocol §8.1, "
                    + "backtests read it several times faster), anything else JSON lines, .gz gzipped. Bad lines "
                    + "are reported and left out; OUT is replaced only once the whole trace is written.")
    static final class Convert implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "IN", description = "the trace to read, in either form")
        Path in;

        @Parameters(index = "1", paramLabel = "OUT", description = "the trace to write")
        Path out;

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter err = spec.commandLine().getErr();
            if (in.toAbsolutePath().normalize().equals(out.toAbsolutePath().normalize())) {
                err.println(out + ": the trace to write cannot be the one read");
                return 2;
            }
            String name = out.getFileName().toString();
            Path partial = out.resolveSibling(name + ".partial");
            long frames = 0;
            long bad = 0;
            try (TraceReader reader = TraceReader.open(in)) {
                try (OutputStream file = Files.newOutputStream(partial);
                     TraceSink sink = new TraceSink(file, TraceNames.gzip(name), TraceNames.binary(name))) {
                    while (reader.hasNext()) {
                        TraceLine line = reader.next();
                        if (line instanceof TraceEntry e) {
                            sink.write(e.frame(), e.node());
                            frames++;
                        } else {
                            err.println(line);
                            bad++;
                        }
                    }
                }
                if (frames == 0 && bad > 0) {
                    // nothing could be read: no empty trace in OUT's place
                    Files.deleteIfExists(partial);
                    return 1;
                }
                Files.move(partial, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                err.println(out + ": cannot write: " + e.getMessage());
                try {
                    Files.deleteIfExists(partial);
                } catch (IOException ignored) {
                    // the message above already says the conversion failed
                }
                return 1;
            }
            spec.commandLine().getOut().printf("%s: %,d frames from %s%s%n", out, frames, in,
                    bad == 0 ? "" : ", " + bad + (bad == 1 ? " bad line left out" : " bad lines left out"));
            return 0;
        }
    }
}
