package io.gpuwatch.probe.scenario;

import java.time.Duration;
import java.util.List;

/** Something a scenario makes happen to one node or card, {@code at} a time after the scenario starts. */
public sealed interface Incident {
    /** Time from the scenario's start. */
    Duration at();

    /** Name of the node it happens on. */
    String node();

    /** An XID on one card; XID 79 (fallen off the bus) leaves the card unreadable for the rest of the run. */
    record Xid(Duration at, String node, int card, int code, String text) implements Incident {
    }

    /** {@code count} XIDs, {@code every} apart; the i-th has {@code codes[i % n]} on {@code cards[i % m]}. */
    record XidBurst(Duration at, String node, List<Integer> cards, List<Integer> codes, int count, Duration every)
            implements Incident {
        public XidBurst {
            cards = List.copyOf(cards);
            codes = List.copyOf(codes);
        }
    }

    /** Cooling fails for {@code duration}: the card heats to its slowdown threshold and throttles, then recovers. */
    record ThermalThrottle(Duration at, String node, int card, Duration duration) implements Incident {
    }

    /** The card's process leaks {@code bytes} every {@code per} until the card is full, then dies of OOM. */
    record MemoryClimb(Duration at, String node, int card, long bytes, Duration per) implements Incident {
    }

    /** The node sends nothing, not even a connection, for {@code duration}, then comes back with the same boot. */
    record NodeSilent(Duration at, String node, Duration duration) implements Incident {
    }

    /** A process holds memory on the card but runs nothing for {@code duration}. */
    record IdleAllocated(Duration at, String node, int card, Duration duration) implements Incident {
    }

    /**
     * {@code count} uncorrectable ECC errors; {@code xid} (nullable) is the XID the driver logs with them;
     * {@code remapFailure}: the row remapper could not remap the rows, and says so from then on.
     */
    record EccUncorrected(Duration at, String node, int card, int count, Integer xid, boolean remapFailure)
            implements Incident {
    }
}
