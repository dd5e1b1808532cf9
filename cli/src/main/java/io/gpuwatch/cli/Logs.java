package io.gpuwatch.cli;

import java.util.logging.Level;
import java.util.logging.Logger;

/** One-line log records on stderr, quiet Netty. */
final class Logs {
    private Logs() {
    }

    static void configure() {
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT.%1$tLZ %4$-7s %3$s: %5$s%6$s%n");
        }
        Logger.getLogger("io.netty").setLevel(Level.WARNING);
    }
}
