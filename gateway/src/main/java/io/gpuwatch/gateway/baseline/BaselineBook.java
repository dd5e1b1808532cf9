package io.gpuwatch.gateway.baseline;

import io.gpuwatch.rules.scope.BaselineStat;

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
    /**
     * Minutes a series of the {@link #defaults()} book must have learned before it answers (and before a rule's
     * episode can hold it): a mean and spread of a handful of minutes make every ordinary swing look unusual.
     */
    public static final int WARM_UP_MINUTES = 30;

    private final double alpha;
    private final double hourlyAlpha;
    private final int minHourlySamples;
    private final ZoneId zone;
    private final int warmUpMinutes;
    private final Map<Key, Learner> learners = new HashMap<>();
    /** The same learners by business, then metric: lookups without a key object, for rules on the hot path. */
    private final Map<String, Map<String, Learner>> byBusiness = new HashMap<>();
    /** What each holder (a rule on one instance) keeps from learning: see {@link #hold}. */
    private final Map<String, List<Key>> holds = new HashMap<>();
    private long cachedQuarter = Long.MIN_VALUE;
    private int cachedHour;

    /** Identifies one learned series. */
    record Key(String business, String metric) {
    }

    /**
     * @param halfLifeMinutes  after how many minutes an observation weighs half (the all-hours profile)
     * @param hourlyHalfLife   after how many weeks an hour-of-week observation weighs half
     * @param minHourlySamples minutes an hour-of-week slot needs before it answers
     * @param warmUpMinutes    minutes a series needs before it answers at all, and before it can be held
     */
    public BaselineBook(double halfLifeMinutes, double hourlyHalfLife, int minHourlySamples, ZoneId zone,
                        int warmUpMinutes) {
        if (!(halfLifeMinutes > 0) || !(hourlyHalfLife > 0) || minHourlySamples < 1 || warmUpMinutes < 1) {
            throw new IllegalArgumentException("half-lives must be positive, minHourlySamples and warmUpMinutes at "
                    + "least 1");
        }
        this.alpha = alphaFor(halfLifeMinutes);
        // an hour slot sees 60 minutes per week
        this.hourlyAlpha = alphaFor(hourlyHalfLife * 60);
        this.minHourlySamples = minHourlySamples;
        this.zone = Objects.requireNonNull(zone, "zone");
        this.warmUpMinutes = warmUpMinutes;
    }

    /**
     * A day's half-life for all hours, four weeks for each hour of the week, 30 minutes per hour slot, UTC, and
     * {@link #WARM_UP_MINUTES} before a series answers.
     */
    public static BaselineBook defaults() {
        return new BaselineBook(24 * 60, 4, 30, ZoneId.of("UTC"), WARM_UP_MINUTES);
    }

    private static double alphaFor(double halfLife) {
        return 1 - Math.pow(0.5, 1 / halfLife);
    }

    /** Learns {@code value} of {@code metric} for {@code business} at {@code tsMs}; NaN and infinities are ignored. */
    public void observe(String business, String metric, long tsMs, double value) {
        if (business == null || !Double.isFinite(value)) {
            return;
        }
        Learner l = learner(business, metric);
        if (l == null) {
            l = new Learner(tsMs);
            put(new Key(business, metric), l);
        }
        l.observe(this, tsMs, value);
    }

    /**
     * Stops the all-hours profile of {@code metric} of {@code business} from learning while {@code holder} (a rule
     * pending or firing on one instance) compares with it, so an anomaly that lasts does not become the normal it
     * is measured against; the minute being filled is not learned either, since it holds the anomaly's start. The
     * hour-of-week profile keeps learning: what recurs at the same hour every week is the normal it exists for,
     * and it answers only after a week. Several holders may hold one series; it learns again from the minute after
     * every one has released it. A null business holds nothing, and neither does a series that has learned fewer
     * than its warm-up: a young baseline cannot tell an anomaly from its own spread yet,
     * and held at that age, one noisy minute would keep its rule firing for good.
     */
    public void hold(String business, String metric, String holder) {
        Learner l = business == null ? null : learner(business, metric);
        if (l == null || l.all.samples < warmUpMinutes) {
            return;
        }
        Key key = new Key(business, metric);
        List<Key> held = holds.computeIfAbsent(holder, h -> new ArrayList<>());
        if (held.contains(key)) {
            return;
        }
        held.add(key);
        l.holders++;
        l.minuteHeld = true;
    }

    /** Ends every hold of {@code holder}; a series no holder holds any more learns from its next minute on. */
    public void release(String holder) {
        List<Key> held = holds.remove(holder);
        if (held == null) {
            return;
        }
        for (Key key : held) {
            Learner l = learners.get(key);
            if (l != null && l.holders > 0) {
                l.holders--;
            }
        }
    }

    /** Ends every hold (a reload: the rules that held may be gone). */
    public void releaseAll() {
        for (String holder : List.copyOf(holds.keySet())) {
            release(holder);
        }
    }

    /** True while some holder keeps {@code metric} of {@code business} from learning. */
    public boolean held(String business, String metric) {
        Learner l = learner(business, metric);
        return l != null && l.holders > 0;
    }

    private Learner learner(String business, String metric) {
        Map<String, Learner> metrics = byBusiness.get(business);
        return metrics == null ? null : metrics.get(metric);
    }

    /** Adds or replaces one series' learning state. */
    void put(Key key, Learner learner) {
        learners.put(key, learner);
        byBusiness.computeIfAbsent(key.business(), b -> new HashMap<>()).put(key.metric(), learner);
    }

    /** What is normal for {@code metric} of {@code business} at {@code tsMs}; {@link Baseline#UNKNOWN} without history. */
    public Baseline get(String business, String metric, long tsMs) {
        Learner l = business == null ? null : learner(business, metric);
        if (l == null) {
            return Baseline.UNKNOWN;
        }
        Moments m = l.current(this, tsMs);
        return m == null ? Baseline.UNKNOWN : m.baseline(m != l.all);
    }

    /**
     * One figure of {@link #get}, without building a {@link Baseline}: what rules read on every evaluation.
     * {@code current} is the value ZSCORE measures; NaN without a business or history.
     */
    public double stat(String business, String metric, long tsMs, BaselineStat stat, double k, double current) {
        Learner l = business == null ? null : learner(business, metric);
        Moments m = l == null ? null : l.current(this, tsMs);
        return m == null ? Double.NaN : stat.of(m.mean, m.std(), k, current);
    }

    /**
     * Starts {@code metric} of {@code business} at {@code tsMs} as if a warmed-up history had taught it
     * {@code mean} and {@code std} (rule tests seed baselines this way); later minutes refine it at the usual
     * weight, so a few minutes of test data barely move it.
     */
    public void seed(String business, String metric, long tsMs, double mean, double std) {
        Learner l = new Learner(tsMs);
        l.all.mean = mean;
        l.all.variance = std * std;
        l.all.samples = (long) Math.ceil(1 / alpha);
        put(new Key(business, metric), l);
    }

    /** Adds every series {@code other} learned, replacing this book's series of the same business and metric. */
    public void takeAll(BaselineBook other) {
        other.learners.forEach(this::put);
    }

    /** Number of learned series. */
    public int size() {
        return learners.size();
    }

    /** Remembered per quarter hour, within which no zone's local hour changes (offsets are whole quarters). */
    int hourOfWeek(long tsMs) {
        long quarter = Math.floorDiv(tsMs, 900_000L);
        if (quarter != cachedQuarter) {
            ZonedDateTime t = Instant.ofEpochMilli(tsMs).atZone(zone);
            cachedHour = (t.getDayOfWeek().getValue() - 1) * 24 + t.getHour();
            cachedQuarter = quarter;
        }
        return cachedHour;
    }

    /** One series' learning state, as {@link BaselineFile} writes it. */
    static final class Learner {
        long firstMinute;
        long minute = Long.MIN_VALUE;
        /** How many holders keep it from learning now; not persisted, since holds are the running rules'. */
        int holders;
        /** The minute being filled was held at some point: the all-hours profile does not learn it. */
        boolean minuteHeld;
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
                minuteHeld = holders > 0;
                return;
            }
            double mean = minuteSum / minuteCount;
            if (!minuteHeld) {
                all.learn(mean, book.alpha);
            }
            hours[book.hourOfWeek(minute * MINUTE_MS)].learn(mean, book.hourlyAlpha);
            minuteSum = 0;
            minuteCount = 0;
            minuteHeld = holders > 0;
        }

        /** The profile that answers at {@code tsMs}: its hour of the week once it can, else all hours; null if none. */
        Moments current(BaselineBook book, long tsMs) {
            long now = Math.floorDiv(tsMs, MINUTE_MS);
            if (now > minute) {
                fold(book);
            }
            Moments hour = hours[book.hourOfWeek(tsMs)];
            if ((now - firstMinute) * MINUTE_MS >= WEEK_MS && hour.samples >= book.minHourlySamples) {
                return hour;
            }
            return all.samples < book.warmUpMinutes ? null : all;
        }
    }

    /**
     * An exponentially weighted mean and variance (West's incremental form). Until it has 1/alpha samples it
     * weighs them equally, a plain mean and variance, so a young profile's spread is not underestimated.
     */
    static final class Moments {
        double mean;
        double variance;
        long samples;

        void learn(double x, double alpha) {
            if (samples == 0) {
                mean = x;
                variance = 0;
            } else {
                double a = Math.max(alpha, 1.0 / (samples + 1));
                double diff = x - mean;
                double incr = a * diff;
                mean += incr;
                variance = (1 - a) * (variance + diff * incr);
            }
            samples++;
        }

        double std() {
            return Math.sqrt(Math.max(0, variance));
        }

        Baseline baseline(boolean hourly) {
            return new Baseline(mean, std(), samples, hourly);
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
