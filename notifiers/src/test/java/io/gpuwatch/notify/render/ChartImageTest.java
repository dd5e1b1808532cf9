package io.gpuwatch.notify.render;

import org.junit.jupiter.api.Test;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChartImageTest {
    private static BufferedImage decode(byte[] png) throws IOException {
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
        assertNotNull(image, "the bytes are not an image ImageIO can read");
        return image;
    }

    private static int coloured(BufferedImage image) {
        int n = 0;
        for (int x = 0; x < image.getWidth(); x++) {
            for (int y = 0; y < image.getHeight(); y++) {
                int rgb = image.getRGB(x, y) & 0xFFFFFF;
                int r = rgb >> 16;
                int g = (rgb >> 8) & 0xFF;
                // bars are red; the ground is white and the baseline grey
                if (r > g + 60) {
                    n++;
                }
            }
        }
        return n;
    }

    @Test
    void pngDecodesToTheAskedSizeWithBars() throws IOException {
        BufferedImage image = decode(ChartImage.png(new double[] {0, 1, 3, 2, 0, 5}, 240, 80));
        assertEquals(240, image.getWidth());
        assertEquals(80, image.getHeight());
        assertTrue(coloured(image) > 200, "expected bars, got " + coloured(image) + " bar pixels");
    }

    @Test
    void tallerValueGivesTallerBar() throws IOException {
        BufferedImage image = decode(ChartImage.png(new double[] {1, 4}, 100, 100));
        int left = 0;
        int right = 0;
        for (int y = 0; y < 100; y++) {
            left += (image.getRGB(25, y) & 0xFF0000) >> 16 > 0xA0 && (image.getRGB(25, y) & 0xFF) < 0x80 ? 1 : 0;
            right += (image.getRGB(75, y) & 0xFF0000) >> 16 > 0xA0 && (image.getRGB(75, y) & 0xFF) < 0x80 ? 1 : 0;
        }
        assertTrue(right > 3 * left && left > 0, "bars of 1 and 4 measured " + left + " and " + right + " px");
    }

    @Test
    void quietPeriodHasNoBars() throws IOException {
        assertEquals(0, coloured(decode(ChartImage.png(new double[] {0, 0, 0}, 120, 40))));
    }

    @Test
    void tooSmallIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ChartImage.png(new double[] {1}, 8, 40));
    }
}
