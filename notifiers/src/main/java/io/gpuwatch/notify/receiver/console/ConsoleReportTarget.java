package io.gpuwatch.notify.receiver.console;

import io.gpuwatch.notify.DeliveryFailure;
import io.gpuwatch.notify.receiver.chat.ReportTarget;
import io.gpuwatch.notify.render.Report;
import io.vertx.core.Future;

import java.io.PrintStream;
import java.util.Objects;

/**
 * Prints reports for a human at a terminal: the title, period and trend, then each section with its lines
 * indented, in one print so that lines of other receivers sharing the stream do not interleave.
 */
public final class ConsoleReportTarget implements ReportTarget {
    private final String name;
    private final PrintStream out;

    public ConsoleReportTarget(String name, PrintStream out) {
        this.name = Objects.requireNonNull(name, "name");
        this.out = Objects.requireNonNull(out, "out");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean showsImages() {
        return false;
    }

    @Override
    public Future<Void> post(Report report) {
        StringBuilder text = new StringBuilder();
        for (String line : report.withoutChart().plainLines()) {
            StringBuilder clean = new StringBuilder(line.length());
            // a label value cannot drive the terminal
            line.codePoints().forEach(cp -> clean.appendCodePoint(Character.isISOControl(cp) ? ' ' : cp));
            text.append(clean).append(System.lineSeparator());
        }
        out.print(text);
        if (out.checkError()) {
            return Future.failedFuture(new DeliveryFailure(name, 1, "the output stream reported an error", false));
        }
        return Future.succeededFuture();
    }
}
