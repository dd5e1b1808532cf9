package io.gpuwatch.probe.load;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class UnackedFramesTest {
    private static List<Long> seqs(UnackedFrames u) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < u.size(); i++) {
            out.add(u.seq(i));
        }
        return out;
    }

    @Test
    void anAckForgetsEverythingUpToItsSeqAndKeepsTheRestInOrder() {
        UnackedFrames u = new UnackedFrames(100);
        for (long s = 1; s <= 10; s++) {
            u.add(s, "f" + s, false);
        }
        u.ackUpTo(6);
        assertEquals(List.of(7L, 8L, 9L, 10L), seqs(u));
        assertEquals("f7", u.text(0));
    }

    @Test
    void whenFullTheOldestGoesAndIsCountedByKind() {
        UnackedFrames u = new UnackedFrames(3);
        u.add(1, "event", true);
        u.add(2, "s2", false);
        u.add(3, "s3", false);
        u.add(4, "s4", false);
        u.add(5, "s5", false);
        assertEquals(List.of(3L, 4L, 5L), seqs(u));
        assertEquals(1, u.droppedEvents());
        assertEquals(1, u.droppedSamples());
    }

    @Test
    void growingAfterWrappingKeepsSeqOrder() {
        UnackedFrames u = new UnackedFrames(50);
        for (long s = 1; s <= 3; s++) {
            u.add(s, "f" + s, false);
        }
        u.ackUpTo(2);
        for (long s = 4; s <= 20; s++) {
            u.add(s, "f" + s, false);
        }
        assertEquals(18, u.size());
        for (int i = 0; i < u.size(); i++) {
            assertEquals(3 + i, u.seq(i));
            assertEquals("f" + (3 + i), u.text(i));
        }
    }
}
