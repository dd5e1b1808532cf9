package io.gpuwatch.gateway.window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WindowMemoryTest {
    static final int SERIES_PER_CARD = 20;

    /** Computed heap of one card: 20 series at a 15-minute horizon and an event log, after an hour of data. */
    static long cardBytes(MetricWindow[] series, EventLog events) {
        long bytes = events.retainedBytes();
        for (MetricWindow w : series) {
            bytes += w.retainedBytes();
        }
        return bytes;
    }

    static MetricWindow[] card(WindowShape shape) {
        MetricWindow[] series = new MetricWindow[SERIES_PER_CARD];
        for (int i = 0; i < series.length; i++) {
            series[i] = new MetricWindow(shape);
        }
        return series;
    }

    @Test
    void cardOfTwentyFifteenMinuteSeriesStaysUnder32KiB() {
        MetricWindow[] series = card(WindowShape.forWindow(900_000));
        EventLog events = new EventLog(3_600_000);
        long empty = cardBytes(series, events);
        for (int t = 0; t < 3600; t++) {
            for (int i = 0; i < series.length; i++) {
                series[i].append(t * 1000L, i * 10 + t % 7);
            }
        }
        assertEquals(empty, cardBytes(series, events), "series do not grow with data");
        assertTrue(empty < 32 * 1024, "card costs " + empty + " bytes");
    }

    @Test
    void fineOnlySeriesCostAboutFourBytesASlot() {
        MetricWindow minute = new MetricWindow(WindowShape.forWindow(60_000));
        assertTrue(minute.retainedBytes() < 61 * 4 + 256, "a one-minute series costs " + minute.retainedBytes());
    }

    @Test
    void fullEventLogStaysBoundedByItsCapacity() {
        EventLog events = new EventLog(3_600_000);
        for (int i = 0; i < 1000; i++) {
            events.add(i, "xid", i);
        }
        long full = events.retainedBytes();
        // Per event: an 8-byte time, a 2-byte kind and a 4-byte code.
        assertTrue(full < EventLog.DEFAULT_CAPACITY * 14 + 512, "a full log costs " + full);
        assertEquals(EventLog.DEFAULT_CAPACITY, events.size());
    }
}
