package io.gpuwatch.protocol.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import io.gpuwatch.protocol.Frame;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Protocol v1 frames to and from JSON text, over jackson-core's streaming parser with no intermediate tree.
 * Decoding validates every field and never throws; a refusal names the field path. Thread-safe.
 */
public final class FrameCodec {
    private final FrameLimits limits;
    private final JsonFactory json;
    private final ThreadLocal<SampleScanner> scanners;

    /** A codec with {@link FrameLimits#DEFAULTS}. */
    public FrameCodec() {
        this(FrameLimits.DEFAULTS);
    }

    public FrameCodec(FrameLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.scanners = ThreadLocal.withInitial(() -> new SampleScanner(limits));
        this.json = JsonFactory.builder()
                // NaN is then parsed as a number and refused with its field path, not as a bare syntax error
                .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
                .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
                // a full sample has some 200 numbers; the JDK's parse and toString would be most of the time
                .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
                .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
                .build();
    }

    /** The limits this codec decodes within. */
    public FrameLimits limits() {
        return limits;
    }

    /** Reads one frame; any problem comes back as a {@link Decoded.Bad}, never as an exception. */
    public Decoded decode(String text) {
        if (text == null) {
            return new Decoded.Bad(Decoded.Bad.BAD_JSON, null, "", "no frame text");
        }
        long bytes = bytesOver(text, limits.maxFrameBytes());
        if (bytes > 0) {
            return new Decoded.Bad(Decoded.Bad.TOO_LARGE, null, "", "frame is " + bytes + " bytes, over the "
                    + limits.maxFrameBytes() + "-byte limit");
        }
        return new FrameReader(json, limits, text).read();
    }

    /**
     * Reads one frame from the UTF-8 bytes {@code utf8[from, to)}, with exactly the outcome of
     * {@link #decode(String)} on their text; a sample in the probe's own shape is read from the bytes directly,
     * several times faster, anything else as text.
     */
    public Decoded decode(byte[] utf8, int from, int to) {
        Decoded.Ok sample = scanners.get().read(utf8, from, to);
        return sample != null ? sample : decode(new String(utf8, from, to - from, StandardCharsets.UTF_8));
    }

    /** The frame's wire form. */
    public String encode(Frame f) {
        return encode(f, null);
    }

    /**
     * The frame's trace-line form: like {@link #encode(Frame)} plus a {@code "node"} key naming its producer.
     * A hello carries its node already, so for a hello {@code node} must be null or the hello's own node.
     */
    public String encode(Frame f, String node) {
        Objects.requireNonNull(f, "frame");
        StringWriter out = new StringWriter(512);
        try (JsonGenerator g = json.createGenerator(out)) {
            new FrameWriter(g).write(f, node);
        } catch (IOException e) {
            // a StringWriter does not fail; only a bug in the generator could get here
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** The UTF-8 length of the text when it is over the limit, else 0; exact counting only near the limit. */
    private static long bytesOver(String text, int limit) {
        long chars = text.length();
        if (chars * 3 <= limit) {
            return 0;
        }
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes > limit ? bytes : 0;
    }
}
