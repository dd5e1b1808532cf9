package io.gpuwatch.probe.load;

/**
 * One node's frames not yet acknowledged, in seq order, for replay after a reconnect: a ring that grows on demand up
 * to a bound, past which the oldest frame goes. Owned by one event loop; not thread-safe.
 */
final class UnackedFrames {
    private final int max;
    private long[] seqs = new long[4];
    private String[] texts = new String[4];
    private boolean[] events = new boolean[4];
    private int head;
    private int size;
    private long droppedSamples;
    private long droppedEvents;

    UnackedFrames(int max) {
        this.max = max;
    }

    void add(long seq, String text, boolean event) {
        if (size == max) {
            if (events[head]) {
                droppedEvents++;
            } else {
                droppedSamples++;
            }
            drop();
        } else if (size == seqs.length) {
            grow();
        }
        int at = (head + size) % seqs.length;
        seqs[at] = seq;
        texts[at] = text;
        events[at] = event;
        size++;
    }

    /** Forgets every frame up to and including {@code seq}. */
    void ackUpTo(long seq) {
        while (size > 0 && seqs[head] <= seq) {
            drop();
        }
    }

    int size() {
        return size;
    }

    /** The i-th frame from the oldest. */
    long seq(int i) {
        return seqs[(head + i) % seqs.length];
    }

    String text(int i) {
        return texts[(head + i) % texts.length];
    }

    long droppedSamples() {
        return droppedSamples;
    }

    long droppedEvents() {
        return droppedEvents;
    }

    private void drop() {
        texts[head] = null;
        head = (head + 1) % seqs.length;
        size--;
    }

    private void grow() {
        int n = Math.min(max, seqs.length * 2);
        long[] s = new long[n];
        String[] t = new String[n];
        boolean[] e = new boolean[n];
        for (int i = 0; i < size; i++) {
            int from = (head + i) % seqs.length;
            s[i] = seqs[from];
            t[i] = texts[from];
            e[i] = events[from];
        }
        seqs = s;
        texts = t;
        events = e;
        head = 0;
    }
}
