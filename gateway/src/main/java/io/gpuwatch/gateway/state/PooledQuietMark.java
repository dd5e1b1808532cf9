package io.gpuwatch.gateway.state;

import java.util.List;

/**
 * The quiet mark of a business, whose cards lie on several nodes: it moves when its cards change or when any of
 * their nodes' marks does (a sample of theirs no sleeping rule could foresee), which is what wakes a rule such as
 * {@code count(cards where avg(idle, 30m) >= 0.95) >= 2} that sleeps on its cards' windows. A task keeps none: its
 * own windows of application readings would need their rewritten frames counted too.
 */
final class PooledQuietMark {
    private long mark;
    /** The sum of the cards' nodes' marks when last looked at: each only grows, so the sum moves when any does. */
    private long nodeMarks;
    private long at = Long.MIN_VALUE;

    /** The scope's cards are no longer the ones they were. */
    void cardsChanged() {
        mark++;
        at = Long.MIN_VALUE;
    }

    /** The mark of {@code cards} at {@code now}; nothing arrives while a tick evaluates, so summed once an instant. */
    long of(List<CardState> cards, long now) {
        if (at != now) {
            long sum = 0;
            for (int i = 0; i < cards.size(); i++) {
                sum += cards.get(i).node().quietMark();
            }
            if (sum != nodeMarks) {
                nodeMarks = sum;
                mark++;
            }
            at = now;
        }
        return mark;
    }
}
