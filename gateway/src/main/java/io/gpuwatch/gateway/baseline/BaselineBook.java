package io.gpuwatch.gateway.baseline;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Learns per business and metric what is normal. Observations are folded into one mean per minute before they
 * are learned, so a metric sampled every second by 500 cards weighs no more than one sampled once a minute.
 * Each minute updates an all-hours exponentially weighted mean and variance, and the one of its hour of the
 * week (in {@code zone}); once {@link #WEEK_MS} of history exists and that hour has {@code minHourlySamples}
 * minutes, the hour-of-week profile answers, so a Monday-morning peak is not an anomaly every Monday.
 * Mutable; owned by the gateway's event loop like the rest of its state.
 */
public final class BaselineBook {
    /** A week, after which hour-of-week profiles can answer. */
    public static final long WEEK_MS = 7L * 24 * 3_600_000;
    static final int HOURS_OF_WEEK = 168;
    private static final long MINUTE_MS = 60_000;

    private final double alpha;
    private final double hourlyAlpha;
    private final int minHourlySamples;
    private final ZoneId zone;
    private final Map<Key, Learner> learners = new HashMap<>();

    /** Identifies one learned series. */
    record Key(String business, String metric) {
    }

    /**
     * @param halfLifeMinutes  after how many minutes an observation weighs half (the all-hours profile)
     * @param hourlyHalfLife   after how many weeks an hour-of-week observation weighs half
     * @param minHourlySamples minutes an hour-of-week slot needs before it answers
     */
    public BaselineBook(double halfLifeMinutes, double hourlyHalfLife, int minHourlySamples, ZoneId zone) {
        if (!(halfLifeMinutes > 0) || !(hourlyHalfLife > 0) || minHourlySamples < 1) {
            throw new IllegalArgumentException("half-lives must be positive and minHourlySamples at least 1");
        }
        this.alpha = alphaFor(halfLifeMinutes);
        // an hour slot sees 60 minutes per week
        this.hourlyAlpha = alphaFor(hourlyHalfLife * 60);
        this.minHourlySamples = minHourlySamples;
        this.zone = Objects.requireNonNull(zone, "zone");
    }

    /** A day's half-life for all hours, four weeks for each hour of the week, 30 minutes per hour slot, UTC. */
    public static BaselineBook defaults() {
        return new BaselineBook(24 * 60, 4, 30, ZoneId.of("UTC"));
    }

    private static double alphaFor(double halfLife) {
        return 1 - Math.pow(0.5, 1 / halfLife);
    }

    /** Learns {@code value} of {@code metric} for {@code business} at {@code tsMs}; NaN and infinities are ignored. */
    public void observe(String business, String metric, long tsMs, double value) {
        if (business == null || !Double.isFinite(value)) {
            return;
        }
        learners.computeIfAbsent(new Key(business, metric), k -> new Learner(tsMs)).observe(this, tsMs, value);
    }

    /** What is normal for {@code metric} of {@code business} at {@code tsMs}; {@link Baseline#UNKNOWN} without history. */
    public Baseline get(String business, String metric, long tsMs) {
        Learner l = business == null ? null : learners.get(new Key(business, metric));
        return l == null ? Baseline.UNKNOWN : l.baseline(this, tsMs);
    }

    /** Number of learned series. */
    public int size() {
        return learners.size();
    }

    int hourOfWeek(long tsMs) {
        ZonedDateTime t = Instant.ofEpochMilli(tsMs).atZone(zone);
        return (t.getDayOfWeek().getValue() - 1) * 24 + t.getHour();
    }

    /** One series' learning state, as {@link BaselineFile} writes it. */
    static final class Learner {
        long firstMinute;
        long minute = Long.MIN_VALUE;
        double minuteSum;
        int minuteCount;
        final Moments all = new Moments();
        final Moments[] hours = new Moments[HOURS_OF_WEEK];

        Learner(long tsMs) {
            this.firstMinute = Math.floorDiv(tsMs, MINUTE_MS);
            for (int h = 0; h < HOURS_OF_WEEK; h++) {
                hours[h] = new Moments();
            }
        }

        void observe(BaselineBook book, long tsMs, double value) {
            long m = Math.floorDiv(tsMs, MINUTE_MS);
            if (m < minute) {
                return;
            }
            if (m > minute) {
                fold(book);
                minute = m;
            }
            minuteSum += value;
            minuteCount++;
        }

        /** Learns the finished minute's mean; the minute being filled stays out until it ends. */
        private void fold(BaselineBook book) {
            if (minuteCount == 0) {
                return;
            }
            double mean = minuteSum / minuteCount;
            all.learn(mean, book.alpha);
            hours[book.hourOfWeek(minute * MINUTE_MS)].learn(mean, book.hourlyAlpha);
            minuteSum = 0;
            minuteCount = 0;
        }

        Baseline baseline(BaselineBook book, long tsMs) {
            long now = Math.floorDiv(tsMs, MINUTE_MS);
            if (now > minute) {
                fold(book);
            }
            Moments hour = hours[book.hourOfWeek(tsMs)];
            if ((now - firstMinute) * MINUTE_MS >= WEEK_MS && hour.samples >= book.minHourlySamples) {
                return hour.baseline(true);
            }
            return all.samples == 0 ? Baseline.UNKNOWN : all.baseline(false);
        }
    }

    /** An exponentially weighted mean and variance (West's incremental form). */
    static final class Moments {
        double mean;
        double variance;
        long samples;

        void learn(double x, double alpha) {
            if (samples == 0) {
                mean = x;
                variance = 0;
            } else {
                double diff = x - mean;
                double incr = alpha * diff;
                mean += incr;
                variance = (1 - alpha) * (variance + diff * incr);
            }
            samples++;
        }

        Baseline baseline(boolean hourly) {
            return new Baseline(mean, Math.sqrt(Math.max(0, variance)), samples, hourly);
        }
    }

    Map<Key, Learner> learners() {
        return learners;
    }

    /** The keys in a stable order, for writing. */
    List<Key> keys() {
        List<Key> keys = new ArrayList<>(learners.keySet());
        keys.sort((a, b) -> a.business().equals(b.business()) ? a.metric().compareTo(b.metric())
                : a.business().compareTo(b.business()));
        return keys;
    }
}
