package io.gpuwatch.probe.scenario;

import io.gpuwatch.protocol.Metric;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/** Something a scenario makes happen to one node or card, {@code at} a time after the scenario starts. */
public sealed interface Incident {
    /** Time from the scenario's start. */
    Duration at();

    /** Name of the node it happens on; null for a queue's incidents. */
    String node();

    /**
     * Whether it puts a new holder on its card, who is then the one to act: its label names the task from its start
     * on, where other incidents name the task they hit.
     */
    default boolean replacesHolder() {
        return false;
    }

    /** An XID on one card; {@code lost} leaves the card unreadable for the rest of the run (XID 79's default). */
    record Xid(Duration at, String node, int card, int code, String text, boolean lost) implements Incident {
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
        @Override
        public boolean replacesHolder() {
            return true;
        }
    }

    /**
     * {@code count} uncorrectable ECC errors; {@code xid} (nullable) is the XID the driver logs with them;
     * {@code remapFailure}: the row remapper could not remap the rows, and says so from then on.
     */
    record EccUncorrected(Duration at, String node, int card, int count, Integer xid, boolean remapFailure)
            implements Incident {
    }

    /** {@code count} corrected ECC errors: the counter grows and an {@code ecc_corrected} event is sent. */
    record EccCorrected(Duration at, String node, int card, int count) implements Incident {
    }

    /**
     * An {@link Effect} that holds on some cards of a node from {@code at} for {@code duration}.
     *
     * @param cards card indexes; empty means every card of the node
     */
    record Spell(Duration at, String node, List<Integer> cards, Duration duration, Effect effect) implements Incident {
        public Spell {
            cards = List.copyOf(cards);
        }
    }

    /** The probe loses its gateway for {@code duration}: it keeps sampling, and replays what it buffered after. */
    record ProbeDisconnect(Duration at, String node, Duration duration) implements Incident {
    }

    /** The node reboots: silent for {@code down}, then a new bootId, fresh counters and restarted processes. */
    record NodeReboot(Duration at, String node, Duration down) implements Incident {
    }

    /**
     * A queue's pending tasks rise to {@code pending} over {@code duration}; {@code drains}: they then drain
     * within the same time (a burst), otherwise they stay and their waits keep growing.
     */
    record QueueLoad(Duration at, String queue, Duration duration, int pending, boolean drains) implements Incident {
        @Override
        public String node() {
            return null;
        }
    }

    /** What a {@link Spell} does to a card while it holds. */
    sealed interface Effect {
        /**
         * Clock-event reasons set, with the SM clock scaled by {@code clock} and power by {@code power};
         * {@code atLimit} holds power at the card's limit instead (capping at TDP).
         */
        record Clock(long reasons, double clock, double power, boolean atLimit) implements Effect {
        }

        /** The work runs at {@code factor} of its pace; {@code dip}: the factor is reached at mid-spell, smoothly. */
        record Load(double factor, boolean dip) implements Effect {
        }

        /** {@code down} NVLink links are down. */
        record Links(int down) implements Effect {
        }

        /** The card heats toward {@code toC} at {@code perMinute} °C a minute (0: as fast as it can). */
        record Heat(double toC, double perMinute) implements Effect {
        }

        /** The process holds {@code level} of the card's memory, steady. */
        record Memory(double level) implements Effect {
        }

        /** The collector does not report these readings. */
        record Unsupported(Set<Metric> metrics) implements Effect {
            public Unsupported {
                metrics = Set.copyOf(metrics);
            }
        }

        /** The card's inference service makes {@code tokens} of its tokens/s, at {@code latency} times its latency. */
        record Serving(double tokens, double latency) implements Effect {
        }

        /**
         * The card's process ends at the start ({@code exitCode}; null: it was never there) and the card stays
         * empty; at the end a new process of the card's job starts, ramping up with low utilisation for
         * {@code ramp}.
         */
        record Vacant(Integer exitCode, Duration ramp) implements Effect {
        }
    }
}
