package io.gpuwatch.probe.trace;

import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.gpuwatch.protocol.trace.BinaryTraceWriter;

import java.io.BufferedOutputStream;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;

/**
 * Frames onto a trace stream in one of its forms (protocol §8): JSON lines, or the binary form of §8.1; gzipped
 * or not. Synchronous and unbuffered in time: {@link TraceWriter} runs one on its own thread. One owner writes.
 */
public final class TraceSink implements Closeable {
    private final OutputStream bytes;
    /** Exactly one of these writes: JSON lines, or the binary form. */
    private final Writer text;
    private final FrameCodec codec;
    private final BinaryTraceWriter binary;

    /**
     * A sink onto {@code out}, which it closes; {@code gzip} compresses (flushing in sync mode, so that what was
     * flushed is readable from a file whose writer was killed before the trailer).
     */
    public TraceSink(OutputStream out, boolean gzip, boolean binary) throws IOException {
        OutputStream raw = gzip ? new GZIPOutputStream(out, 1 << 16, true) : out;
        if (binary) {
            this.bytes = new BufferedOutputStream(raw, 1 << 16);
            this.binary = new BinaryTraceWriter(bytes);
            this.text = null;
            this.codec = null;
        } else {
            this.bytes = raw;
            this.binary = null;
            this.text = new BufferedWriter(new OutputStreamWriter(raw, StandardCharsets.UTF_8), 1 << 16);
            this.codec = new FrameCodec();
        }
    }

    /** Appends a hello, or another frame of producer {@code node}. */
    public void write(Frame frame, String node) throws IOException {
        String producer = frame instanceof Hello ? null : node;
        if (binary != null) {
            binary.write(frame, producer);
        } else {
            text.write(codec.encode(frame, producer));
            text.write('\n');
        }
    }

    public void flush() throws IOException {
        if (text != null) {
            text.flush();
        } else {
            bytes.flush();
        }
    }

    /** Writes what is buffered, ends the gzip stream and closes the stream. */
    @Override
    public void close() throws IOException {
        if (text != null) {
            text.close();
        } else {
            bytes.close();
        }
    }
}
