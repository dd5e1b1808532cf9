package io.gpuwatch.gateway.store;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock the test moves by hand. */
final class TestClock implements InstantSource {
    private Instant now;

    TestClock(Instant start) {
        this.now = start;
    }

    @Override
    public Instant instant() {
        return now;
    }

    void advance(Duration d) {
        now = now.plus(d);
    }
}
