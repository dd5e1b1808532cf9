package io.gpuwatch.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/** A test that runs {@code gpuwatch …} in this JVM and reads what it printed. */
abstract class InProcessCommandTest {
    protected final StringWriter out = new StringWriter();
    protected final StringWriter err = new StringWriter();

    /** Runs the command line with {@code args}, its output and errors added to {@link #out} and {@link #err}. */
    protected int run(String... args) {
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }
}
