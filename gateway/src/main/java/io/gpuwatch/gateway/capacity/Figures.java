package io.gpuwatch.gateway.capacity;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/** How the capacity report's text forms write numbers: no more digits than the figure can carry. */
final class Figures {
    private Figures() {
    }

    /** Card-hours and the like: two decimals below 10, one below 100, none above; "—" when unknown. */
    static String hours(double v) {
        if (Double.isNaN(v)) {
            return "—";
        }
        double a = Math.abs(v);
        return String.format(Locale.ROOT, a < 10 ? "%.2f" : a < 100 ? "%.1f" : "%,.0f", v);
    }

    /** A share as a whole percent; "—" when unknown. */
    static String percent(double v) {
        return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, "%.0f %%", v * 100);
    }

    /** A share as a percent with one decimal, for effective compute ratios that sit near a band edge. */
    static String percent1(double v) {
        return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, "%.1f %%", v * 100);
    }

    /** Money with two decimals and the currency; "unpriced" when unknown. */
    static String money(double v, String currency) {
        if (Double.isNaN(v)) {
            return "unpriced";
        }
        return String.format(Locale.ROOT, "%,.2f", v) + (currency.isEmpty() ? "" : " " + currency);
    }

    /** Two significant figures, for estimates whose model cannot carry more. */
    static String estimate(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "—";
        }
        BigDecimal r = new BigDecimal(v).round(new MathContext(2)).stripTrailingZeros();
        return Math.abs(v) >= 1000 ? String.format(Locale.ROOT, "%,.0f", r) : r.toPlainString();
    }

    /** Seconds as a short duration: 45 s, 12 min, 3.5 h. */
    static String seconds(double s) {
        if (Double.isNaN(s)) {
            return "—";
        }
        if (s < 120) {
            return String.format(Locale.ROOT, "%.0f s", s);
        }
        if (s < 7200) {
            return String.format(Locale.ROOT, "%.0f min", s / 60);
        }
        return String.format(Locale.ROOT, "%.1f h", s / 3600);
    }
}
