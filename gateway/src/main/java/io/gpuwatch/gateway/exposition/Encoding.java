package io.gpuwatch.gateway.exposition;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
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
        return write(gzip, text.length(), format -> format.text(text));
    }

    /**
     * Encodes what {@code writer} writes, chunk by chunk as it writes it, so the whole text is never held: at
     * 10,000 cards it is ~85 MB, its gzip ~6 MB. Gzip at the fastest level, since the text is repetitive and the
     * scrape waits.
     */
    public static Encoding write(boolean gzip, long textBytesHint, Consumer<TextFormat> writer) {
        // gzip shrinks the text about 14 times; sized ahead, the buffer is not copied over and over as it grows
        long expected = Math.max(4096, gzip ? textBytesHint / 12 : textBytesHint + textBytesHint / 16);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream((int) Math.min(expected, Integer.MAX_VALUE - 16));
        byte[][] utf8 = {new byte[(TextFormat.CHUNK_CHARS + 8192) * 3]};
        try (OutputStream out = gzip ? fastGzip(bytes) : bytes) {
            TextFormat format = new TextFormat(new StringBuilder(TextFormat.CHUNK_CHARS + 8192), chunk -> {
                if (chunk.length() * 3 > utf8[0].length) {
                    // a line longer than the slack (a label value kilobytes long) ended this chunk
                    utf8[0] = new byte[chunk.length() * 3];
                }
                try {
                    out.write(utf8[0], 0, utf8(chunk, utf8[0]));
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

    /**
     * Encodes {@code text} as UTF-8 into {@code to}, which holds three bytes per char, and returns the length: a
     * chunk is encoded into the same array every time instead of into a new string and byte array.
     */
    static int utf8(CharSequence text, byte[] to) {
        int n = 0;
        int length = text.length();
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                to[n++] = (byte) c;
            } else if (c < 0x800) {
                to[n++] = (byte) (0xc0 | c >> 6);
                to[n++] = (byte) (0x80 | c & 0x3f);
            } else if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, text.charAt(++i));
                to[n++] = (byte) (0xf0 | cp >> 18);
                to[n++] = (byte) (0x80 | cp >> 12 & 0x3f);
                to[n++] = (byte) (0x80 | cp >> 6 & 0x3f);
                to[n++] = (byte) (0x80 | cp & 0x3f);
            } else if (Character.isSurrogate(c)) {
                // a lone surrogate is not a character: '?' as String.getBytes writes it
                to[n++] = '?';
            } else {
                to[n++] = (byte) (0xe0 | c >> 12);
                to[n++] = (byte) (0x80 | c >> 6 & 0x3f);
                to[n++] = (byte) (0x80 | c & 0x3f);
            }
        }
        return n;
    }

    private static GZIPOutputStream fastGzip(OutputStream to) throws IOException {
        return new GZIPOutputStream(to, 64 * 1024) {
            {
                def.setLevel(Deflater.BEST_SPEED);
            }
        };
    }
}
