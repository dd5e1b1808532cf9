package io.gpuwatch.cli;

import java.util.logging.Level;
import java.util.logging.Logger;

/** One-line log records on stderr, quiet Netty and Hazelcast (gpuwatch logs cluster membership itself). */
final class Logs {
    // JUL holds loggers weakly: a level set on one nobody references is lost when it is collected
    private static final Logger NETTY = Logger.getLogger("io.netty");
    private static final Logger HAZELCAST = Logger.getLogger("com.hazelcast");

    private Logs() {
    }

    static void configure() {
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT.%1$tLZ %4$-7s %3$s: %5$s%6$s%n");
        }
        NETTY.setLevel(Level.WARNING);
        HAZELCAST.setLevel(Level.WARNING);
    }
}
