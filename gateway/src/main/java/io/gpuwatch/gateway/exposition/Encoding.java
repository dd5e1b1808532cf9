package io.gpuwatch.gateway.exposition;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/** A scrape's body as sent: gzip when the scraper accepts it (Prometheus does), plain UTF-8 otherwise. */
public record Encoding(byte[] body, boolean gzip) {
    /** True when an {@code Accept-Encoding} header lists gzip with a weight above zero. */
    public static boolean accepts(String acceptEncoding) {
        if (acceptEncoding == null) {
            return false;
        }
        for (String part : acceptEncoding.split(",")) {
            String[] coding = part.strip().split(";");
            if (!coding[0].strip().toLowerCase(Locale.ROOT).equals("gzip")) {
                continue;
            }
            for (int i = 1; i < coding.length; i++) {
                String param = coding[i].strip().replace(" ", "");
                if (param.equals("q=0") || param.matches("q=0\\.0*")) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    /** Encodes {@code text}; gzip at the fastest level, since the text is repetitive and the scrape waits. */
    public static Encoding of(CharSequence text, boolean gzip) {
        byte[] plain = text.toString().getBytes(StandardCharsets.UTF_8);
        if (!gzip) {
            return new Encoding(plain, false);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(plain.length / 8 + 64);
        try (GZIPOutputStream z = new GZIPOutputStream(bytes, 64 * 1024) {
            {
                def.setLevel(Deflater.BEST_SPEED);
            }
        }) {
            z.write(plain);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Encoding(bytes.toByteArray(), true);
    }
}
