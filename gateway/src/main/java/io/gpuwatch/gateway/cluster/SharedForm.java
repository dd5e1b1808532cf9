package io.gpuwatch.gateway.cluster;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * How one kind of record travels between gateways: its key in its cluster map, its JSON text there and on the
 * event bus, and its version, the instant it was last written, by which the later write wins.
 */
interface SharedForm<T> {
    /** The version of the JSON text this gateway writes; text of any other version is not read. */
    int VERSION = 1;

    /** What the record is, for messages: {@code silence}, {@code acknowledgement}. */
    String kind();

    /** The record's key in its map. */
    String key(T record);

    /** The record as JSON text. */
    String encode(T record);

    /**
     * The record that {@code text}, found under {@code key}, holds.
     *
     * @throws IllegalArgumentException naming the key and what is wrong
     */
    T decode(String key, String text);

    /** When the record was last written; compared to the millisecond, as the stores keep times. */
    Instant version(T record);

    /**
     * Whether {@code a} supersedes {@code b}: written later, or, written in the same millisecond by two gateways,
     * the greater text, so that every gateway picks the same one.
     */
    default boolean newer(T a, T b) {
        int byTime = millis(version(a)).compareTo(millis(version(b)));
        return byTime != 0 ? byTime > 0 : encode(a).compareTo(encode(b)) > 0;
    }

    /** {@code t} to the millisecond, as the record's text and the stores hold it. */
    static Instant millis(Instant t) {
        return t.truncatedTo(ChronoUnit.MILLIS);
    }
}
