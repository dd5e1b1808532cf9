package io.gpuwatch.notify.render;

/**
 * A series drawn as one line of block characters ({@code ▁▂▃▄▅▆▇█}), for chat targets that cannot show an
 * image. The bars are scaled from zero to the largest value, so an all-quiet period reads as a flat {@code ▁▁▁}
 * and a single alert in an otherwise quiet day still stands out.
 */
public final class Sparkline {
    private static final String BARS = "▁▂▃▄▅▆▇█";

    private Sparkline() {
    }

    /** One block per value; a negative or NaN value counts as zero. */
    public static String of(double[] values) {
        double max = 0;
        for (double v : values) {
            if (v > max) {
                max = v;
            }
        }
        StringBuilder sb = new StringBuilder(values.length);
        for (double v : values) {
            int level = 0;
            if (max > 0 && v > 0) {
                // anything above zero gets at least the second bar, so it never looks like nothing
                level = Math.max(1, (int) Math.round(v / max * (BARS.length() - 1)));
            }
            sb.append(BARS.charAt(level));
        }
        return sb.toString();
    }
}
