package io.gpuwatch.rules.scope;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.metric.SeriesSpec;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A scope instance for tests, holding windows for the series of a rule set and appending samples the way the
 * gateway does: raw series first, then the derived ones from the same instant.
 */
public final class FakeScope implements ScopeView {
    private final List<SeriesSpec> specs;
    private final List<FakeSeries> series = new ArrayList<>();
    private final Map<String, String> labels = new HashMap<>();
    private final Map<String, String> identity;
    private final List<Object[]> events = new ArrayList<>();
    private final Map<String, double[]> baselines = new HashMap<>();
    private Function<String, String> labelHook = k -> null;
    private long now;
    private long lastFrameAt;
    private boolean allocated;
    private long period = -1;
    private double cardHourPrice = Double.NaN;
    private double flopsPerToken = Double.NaN;
    private double flopsPerSample = Double.NaN;
    private double peakFlops = Double.NaN;
    private double requestedVsUsed = Double.NaN;
    private final List<long[]> outcomes = new ArrayList<>();
    private List<? extends ScopeView> members = List.of();
    private List<ScopeView> peerGroup = List.of();

    public FakeScope(List<SeriesSpec> specs, Map<String, String> identity) {
        this.specs = List.copyOf(specs);
        this.identity = Map.copyOf(identity);
        for (int i = 0; i < specs.size(); i++) {
            series.add(new FakeSeries());
        }
        identity.forEach((k, v) -> labels.put(k.equals("uuid") ? "card.uuid" : k, v));
    }

    /** A card {@code uuid} on node {@code node}. */
    public static FakeScope card(RuleSet set, String node, String uuid) {
        return new FakeScope(set.series(), Map.of("node", node, "uuid", uuid));
    }

    public static FakeScope node(RuleSet set, String node) {
        return new FakeScope(set.series(), Map.of("node", node));
    }

    public FakeScope at(long nowMs) {
        this.now = nowMs;
        return this;
    }

    public FakeScope label(String key, String value) {
        labels.put(key, value);
        return this;
    }

    /** Consulted before the fixed labels; lets a test make a label lookup fail. */
    public FakeScope labelHook(Function<String, String> hook) {
        this.labelHook = hook;
        return this;
    }

    public FakeScope allocated(boolean a) {
        this.allocated = a;
        return this;
    }

    /** The scope's data period from now on (see {@link ScopeView#period()}). */
    public FakeScope period(long p) {
        this.period = p;
        return this;
    }

    public FakeScope cardHourPrice(double price) {
        this.cardHourPrice = price;
        return this;
    }

    /** The task's declared model and the peak of its cards, as the gateway would give them. */
    public FakeScope compute(double flopsPerToken, double flopsPerSample, double peakFlops) {
        this.flopsPerToken = flopsPerToken;
        this.flopsPerSample = flopsPerSample;
        this.peakFlops = peakFlops;
        return this;
    }

    public FakeScope requestedVsUsed(double ratio) {
        this.requestedVsUsed = ratio;
        return this;
    }

    /** A task of the scope ended at {@code ts}, succeeded or failed. */
    public FakeScope ended(long ts, boolean succeeded) {
        outcomes.add(new long[] {ts, succeeded ? 1 : 0});
        return this;
    }

    @Override
    public double flopsPerToken() {
        return flopsPerToken;
    }

    @Override
    public double flopsPerSample() {
        return flopsPerSample;
    }

    @Override
    public double peakFlops() {
        return peakFlops;
    }

    @Override
    public double requestedVsUsed() {
        return requestedVsUsed;
    }

    @Override
    public int tasksEnded(long windowMs) {
        int n = 0;
        for (long[] o : outcomes) {
            n += now - o[0] < windowMs ? 1 : 0;
        }
        return n;
    }

    @Override
    public double taskSuccessRate(long windowMs) {
        int ended = 0;
        int ok = 0;
        for (long[] o : outcomes) {
            if (now - o[0] < windowMs) {
                ended++;
                ok += (int) o[1];
            }
        }
        return ended == 0 ? Double.NaN : (double) ok / ended;
    }

    /** The member cards a task or business scope reads. */
    public FakeScope members(List<? extends ScopeView> cards) {
        this.members = List.copyOf(cards);
        return this;
    }

    @Override
    public long period() {
        return period;
    }

    @Override
    public double cardHourPrice() {
        return cardHourPrice;
    }

    @Override
    public List<? extends ScopeView> members() {
        return members;
    }

    /** What is normal for {@code metric} in {@code business}, as the gateway would have learned it. */
    public FakeScope baseline(String business, Metric metric, double mean, double std) {
        baselines.put(business + "/" + metric.field(), new double[] {mean, std});
        return this;
    }

    /** Appends one sample at {@code ts}; metrics not in {@code values} are absent (NaN). */
    public FakeScope sample(long ts, Map<Metric, Double> values) {
        at(ts);
        lastFrameAt = ts;
        for (SeriesSpec s : specs) {
            if (s.metric() != null) {
                series.get(s.id()).add(ts, values.getOrDefault(s.metric(), Double.NaN));
            }
        }
        for (SeriesSpec s : specs) {
            if (s.derivation() != null) {
                series.get(s.id()).add(ts, s.derivation().derive(this));
            }
        }
        return this;
    }

    /** Records that the node spoke at {@code ts} without a sample for this scope. */
    public FakeScope heard(long ts) {
        lastFrameAt = ts;
        return this;
    }

    public FakeScope event(long ts, String kind, int code) {
        events.add(new Object[] {ts, kind, code});
        return this;
    }

    @Override
    public long now() {
        return now;
    }

    @Override
    public String label(String key) {
        String hooked = labelHook.apply(key);
        return hooked != null ? hooked : labels.get(key);
    }

    @Override
    public Map<String, String> identity() {
        return identity;
    }

    @Override
    public Series series(int seriesId) {
        return seriesId >= 0 && seriesId < series.size() ? series.get(seriesId) : Series.EMPTY;
    }

    private boolean matches(Object[] e, String kind, int code, long windowMs) {
        long ts = (Long) e[0];
        return ts > now - windowMs && ts <= now && (kind == null || kind.equals(e[1]))
                && (code < 0 || code == (Integer) e[2]);
    }

    @Override
    public int countEvents(String kind, int code, long windowMs) {
        int n = 0;
        for (Object[] e : events) {
            if (matches(e, kind, code, windowMs)) {
                n++;
            }
        }
        return n;
    }

    @Override
    public List<String> distinctEvents(String kind, int code, long windowMs) {
        TreeSet<Integer> codes = new TreeSet<>();
        for (Object[] e : events) {
            if (matches(e, kind, code, windowMs)) {
                codes.add((Integer) e[2]);
            }
        }
        List<String> out = new ArrayList<>();
        codes.forEach(c -> out.add(Integer.toString(c)));
        return out;
    }

    @Override
    public long silentForMs() {
        return Math.max(0, now - lastFrameAt);
    }

    @Override
    public boolean allocated() {
        return allocated;
    }

    /** The group this scope is compared with by {@code peers(…)}, itself included. */
    public FakeScope peers(List<? extends ScopeView> group) {
        this.peerGroup = List.copyOf(group);
        return this;
    }

    /** Each member of the group's mean over the window, compared as the gateway compares a task's cards. */
    @Override
    public double peers(int seriesId, long windowMs, PeerStat stat) {
        double[] figures = new double[peerGroup.size()];
        for (int i = 0; i < figures.length; i++) {
            figures[i] = peerGroup.get(i).series(seriesId).avg(windowMs);
        }
        return PeerGroup.of(peerGroup, figures).stat(this, stat);
    }

    /** Like a card: the baseline of its business label, unknown without one. */
    @Override
    public double baseline(int seriesId, BaselineStat stat, double k) {
        String business = label("business");
        double[] b = business == null ? null : baselines.get(business + "/" + specs.get(seriesId).name());
        return b == null ? Double.NaN : stat.of(b[0], b[1], k, series(seriesId).last());
    }

    /** Samples in time order; window functions cover (now - w, now] and skip missing values. */
    private final class FakeSeries implements Series {
        private final List<double[]> samples = new ArrayList<>();

        void add(long ts, double v) {
            samples.add(new double[] {ts, v});
        }

        private List<double[]> window(long w) {
            List<double[]> out = new ArrayList<>();
            for (double[] s : samples) {
                if (s[0] > now - w && s[0] <= now && !Double.isNaN(s[1])) {
                    out.add(s);
                }
            }
            return out;
        }

        /** Like the gateway's windows, a sample without the value leaves the previous one standing. */
        @Override
        public double last() {
            for (int i = samples.size() - 1; i >= 0; i--) {
                if (samples.get(i)[0] <= now && !Double.isNaN(samples.get(i)[1])) {
                    return samples.get(i)[1];
                }
            }
            return Double.NaN;
        }

        @Override
        public double avg(long w) {
            List<double[]> s = window(w);
            return s.isEmpty() ? Double.NaN : sum(w) / s.size();
        }

        @Override
        public double min(long w) {
            return window(w).stream().mapToDouble(s -> s[1]).min().orElse(Double.NaN);
        }

        @Override
        public double max(long w) {
            return window(w).stream().mapToDouble(s -> s[1]).max().orElse(Double.NaN);
        }

        @Override
        public double sum(long w) {
            List<double[]> s = window(w);
            return s.isEmpty() ? Double.NaN : s.stream().mapToDouble(x -> x[1]).sum();
        }

        @Override
        public double count(long w) {
            return window(w).size();
        }

        @Override
        public double increase(long w) {
            List<double[]> s = window(w);
            if (s.size() < 2) {
                return Double.NaN;
            }
            double total = 0;
            for (int i = 1; i < s.size(); i++) {
                double d = s.get(i)[1] - s.get(i - 1)[1];
                total += d >= 0 ? d : s.get(i)[1];
            }
            return total;
        }

        @Override
        public double rate(long w) {
            return increase(w) / (w / 1000.0);
        }

        @Override
        public double slope(long w) {
            List<double[]> s = window(w);
            if (s.size() < 2) {
                return Double.NaN;
            }
            double mt = s.stream().mapToDouble(x -> x[0] / 1000.0).average().orElseThrow();
            double mv = s.stream().mapToDouble(x -> x[1]).average().orElseThrow();
            double num = 0;
            double den = 0;
            for (double[] x : s) {
                num += (x[0] / 1000.0 - mt) * (x[1] - mv);
                den += (x[0] / 1000.0 - mt) * (x[0] / 1000.0 - mt);
            }
            return den == 0 ? Double.NaN : num / den;
        }

        @Override
        public double quantile(double p, long w) {
            double[] v = window(w).stream().mapToDouble(x -> x[1]).sorted().toArray();
            if (v.length == 0) {
                return Double.NaN;
            }
            double rank = p * (v.length - 1);
            int lower = (int) Math.floor(rank);
            int upper = Math.min(v.length - 1, lower + 1);
            double weight = rank - lower;
            return v[lower] * (1 - weight) + v[upper] * weight;
        }

        @Override
        public double delta(long w) {
            List<double[]> s = window(w);
            return s.size() < 2 ? Double.NaN : s.get(s.size() - 1)[1] - s.get(0)[1];
        }

        @Override
        public double resets(long w) {
            List<double[]> s = window(w);
            if (s.isEmpty()) {
                return Double.NaN;
            }
            int n = 0;
            for (int i = 1; i < s.size(); i++) {
                n += s.get(i)[1] < s.get(i - 1)[1] ? 1 : 0;
            }
            return n;
        }

        @Override
        public double changes(long w) {
            List<double[]> s = window(w);
            if (s.isEmpty()) {
                return Double.NaN;
            }
            int n = 0;
            for (int i = 1; i < s.size(); i++) {
                n += s.get(i)[1] != s.get(i - 1)[1] ? 1 : 0;
            }
            return n;
        }

        @Override
        public double predict(long w, long horizonMs) {
            List<double[]> s = window(w);
            double slope = slope(w);
            if (Double.isNaN(slope)) {
                return Double.NaN;
            }
            double mt = s.stream().mapToDouble(x -> (x[0] - now) / 1000.0).average().orElseThrow();
            double mv = s.stream().mapToDouble(x -> x[1]).average().orElseThrow();
            return mv + slope * (horizonMs / 1000.0 - mt);
        }
    }
}
