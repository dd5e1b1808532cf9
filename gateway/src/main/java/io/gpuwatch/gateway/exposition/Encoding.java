package io.gpuwatch.gateway.exposition;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.Consumer;
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

    /** Encodes {@code text}. */
    public static Encoding of(CharSequence text, boolean gzip) {
        return write(gzip, format -> format.text(text));
    }

    /**
     * Encodes what {@code writer} writes, chunk by chunk as it writes it, so the whole text is never held: at
     * 10,000 cards it is ~85 MB, its gzip ~6 MB. Gzip at the fastest level, since the text is repetitive and the
     * scrape waits.
     */
    public static Encoding write(boolean gzip, Consumer<TextFormat> writer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(gzip ? 1 << 20 : 1 << 22);
        try (OutputStream out = gzip ? fastGzip(bytes) : bytes) {
            TextFormat format = new TextFormat(new StringBuilder(TextFormat.CHUNK_CHARS + 4096), chunk -> {
                try {
                    out.write(chunk.toString().getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            writer.accept(format);
            format.finish();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Encoding(bytes.toByteArray(), gzip);
    }

    private static GZIPOutputStream fastGzip(OutputStream to) throws IOException {
        return new GZIPOutputStream(to, 64 * 1024) {
            {
                def.setLevel(Deflater.BEST_SPEED);
            }
        };
    }
}
