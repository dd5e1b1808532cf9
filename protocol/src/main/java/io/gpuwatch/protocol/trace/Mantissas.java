package io.gpuwatch.protocol.trace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Each card's previous mantissa and scale of every field, by the string number of its uuid: what a value of a
 * {@link BinaryTrace} sample is the difference from. Writer and reader keep one each, in step.
 */
final class Mantissas {
    /** One card's: {@code scale[i]} is -1 while field {@code i} has none to differ from (or was stored raw). */
    record Card(long[] mantissa, int[] scale) {
    }

    private final List<Card> cards = new ArrayList<>();
    private int fields;

    /** Cards whose samples hold {@code fields} fields. */
    Mantissas(int fields) {
        this.fields = fields;
    }

    /** The card whose uuid is string number {@code id}, with nothing to differ from the first time. */
    Card of(int id) {
        while (cards.size() <= id) {
            cards.add(null);
        }
        Card card = cards.get(id);
        if (card == null) {
            card = new Card(new long[fields], new int[fields]);
            Arrays.fill(card.scale(), -1);
            cards.set(id, card);
        }
        return card;
    }

    /** Forgets every card, as a new table of {@code fields} fields starts. */
    void clear(int fields) {
        cards.clear();
        this.fields = fields;
    }
}
