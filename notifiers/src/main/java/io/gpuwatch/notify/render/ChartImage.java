package io.gpuwatch.notify.render;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A small bar chart of a series as a PNG, drawn with java.awt in headless mode so a gateway without a display
 * can render it: one bar per value on a white ground over a baseline, scaled to the largest value. It draws no
 * text, since a slim server JDK may have no fonts; the message next to it says what the bars count.
 */
public final class ChartImage {
    private static final Color GROUND = Color.WHITE;
    private static final Color BAR = new Color(0xD0, 0x3B, 0x2F);
    private static final Color AXIS = new Color(0x88, 0x88, 0x88);
    private static final int PAD = 4;

    private ChartImage() {
    }

    /** The PNG bytes of a {@code width} × {@code height} chart of {@code values}. */
    public static byte[] png(double[] values, int width, int height) {
        if (width < 16 || height < 16) {
            throw new IllegalArgumentException("a chart needs at least 16×16 pixels, got " + width + "×" + height);
        }
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(GROUND);
            g.fillRect(0, 0, width, height);
            double max = 0;
            for (double v : values) {
                if (v > max) {
                    max = v;
                }
            }
            int top = PAD;
            int bottom = height - PAD;
            int plotWidth = width - 2 * PAD;
            if (values.length > 0 && max > 0) {
                g.setColor(BAR);
                double step = (double) plotWidth / values.length;
                for (int i = 0; i < values.length; i++) {
                    double v = values[i] > 0 ? values[i] : 0;
                    int h = (int) Math.round(v / max * (bottom - top));
                    int x = PAD + (int) Math.floor(i * step);
                    int w = Math.max(1, (int) Math.floor((i + 1) * step) - (int) Math.floor(i * step) - 1);
                    g.fillRect(x, bottom - h, w, h);
                }
            }
            g.setColor(AXIS);
            g.setStroke(new BasicStroke(1f));
            g.drawLine(PAD, bottom, width - PAD, bottom);
        } finally {
            g.dispose();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(image, "png", out)) {
                throw new IllegalStateException("this JVM has no PNG writer");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not encode the chart", e);
        }
        return out.toByteArray();
    }
}
