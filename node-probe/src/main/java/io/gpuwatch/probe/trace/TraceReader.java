package io.gpuwatch.probe.trace;

import io.gpuwatch.protocol.Ack;
import io.gpuwatch.protocol.ConfigFrame;
import io.gpuwatch.protocol.ErrorFrame;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Welcome;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.gpuwatch.protocol.codec.FrameLimits;
import io.gpuwatch.protocol.trace.BinaryTrace;
import io.gpuwatch.protocol.trace.BinaryTraceReader;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Reads a trace (protocol §8), plain or gzipped (told apart by the gzip magic, not the name), JSON lines or the
 * binary form of §8.1 (told apart by its magic; its records are numbered in place of lines), one line at a time
 * and in constant memory. Each line gives a {@link TraceEntry} or a {@link TraceError} naming {@code file:line},
 * after which reading goes on with the next line; a gzip stream that breaks off (its recorder was killed) gives
 * every complete line, then one {@link TraceError#ENDED_EARLY} error. A frame other than hello names its producer
 * with a {@code "node"} key; without one it belongs to the trace's only producer so far, and is an error when
 * there is none or more than one. Blank lines are skipped. Not thread-safe: one owner reads it.
 */
public final class TraceReader implements Iterator<TraceLine>, AutoCloseable {
    private static final int CHUNK = 1 << 16;
    // a trace line is a wire frame plus the "node" key: room for the key of the longest node name
    private static final int NODE_KEY_BYTES = 512;

    private final String source;
    private final FrameCodec codec;
    private final int maxLineBytes;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    private final Map<String, Hello> hellos = new LinkedHashMap<>();
    private final byte[] chunk = new byte[CHUNK];
    private InputStream in;
    /** Set when the file is a binary trace. */
    private BinaryTraceReader binary;
    private int pos;
    private int limit;
    private byte[] line = new byte[1024];
    private int lineLen;
    private long lineBytes;
    private boolean inLine;
    private long lineNo;
    private TraceLine ahead;
    private boolean ended;
    private long entries;
    private long badLines;
    private boolean endedEarly;

    private TraceReader(String source, FrameLimits limits) {
        this.source = source;
        this.maxLineBytes = limits.maxFrameBytes() + NODE_KEY_BYTES;
        this.codec = new FrameCodec(new FrameLimits(maxLineBytes, limits.maxCards(), limits.maxProcessesPerCard(),
                limits.maxStringChars()));
    }

    /** A reader of the file with the protocol's default frame limits. Never throws: problems come as lines. */
    public static TraceReader open(Path file) {
        return open(file, FrameLimits.DEFAULTS);
    }

    /** A reader of the file whose frames must keep within {@code limits} (lines get room for the node key). */
    public static TraceReader open(Path file, FrameLimits limits) {
        TraceReader r = new TraceReader(file.toString(), limits);
        InputStream raw = null;
        try {
            raw = Files.newInputStream(file);
            BufferedInputStream buffered = new BufferedInputStream(raw, CHUNK);
            buffered.mark(2);
            boolean gzip = buffered.read() == 0x1f && buffered.read() == 0x8b;
            buffered.reset();
            PushbackInputStream in = new PushbackInputStream(gzip ? new GZIPInputStream(buffered, CHUNK) : buffered,
                    BinaryTrace.MAGIC_BYTES);
            r.in = in;
            if (BinaryTrace.starts(in)) {
                r.binary = new BinaryTraceReader(in, r.source, limits);
            }
        } catch (IOException e) {
            r.stop(r.failure(e));
            close(raw);
        }
        return r;
    }

    @Override
    public boolean hasNext() {
        if (ahead == null && !ended) {
            ahead = read();
        }
        return ahead != null;
    }

    @Override
    public TraceLine next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the trace " + source + " has no more lines");
        }
        TraceLine l = ahead;
        ahead = null;
        return l;
    }

    /** Frames read so far. */
    public long entries() {
        return entries;
    }

    /** Lines so far that held no usable frame. */
    public long badLines() {
        return badLines;
    }

    /** Whether the file broke off inside its gzip stream (known once the end is reached). */
    public boolean endedEarly() {
        return endedEarly;
    }

    /** The node's latest hello read so far (its {@code bootId} names the current stream), or null. */
    public Hello hello(String node) {
        return hellos.get(node);
    }

    /** The producers that have said hello so far, in the order of their first hello. */
    public List<String> producers() {
        return List.copyOf(hellos.keySet());
    }

    @Override
    public void close() {
        ended = true;
        close(in);
        in = null;
    }

    // ---- lines

    /** The next entry or error, or null at the end. */
    private TraceLine read() {
        if (binary != null) {
            return readRecord();
        }
        while (!ended) {
            boolean got;
            try {
                got = readLine();
            } catch (IOException e) {
                TraceError broken = failure(e);
                stop(null);
                return broken;
            }
            if (!got) {
                stop(null);
                return null;
            }
            TraceLine l = decodeLine();
            if (l != null) {
                return l;
            }
        }
        return null;
    }

    /** The next record of a binary trace (protocol §8.1), numbered in place of a line. */
    private TraceLine readRecord() {
        while (!ended) {
            BinaryTraceReader.Entry e;
            try {
                e = binary.next();
            } catch (IOException ex) {
                TraceError broken = failure(ex);
                stop(null);
                return broken;
            }
            if (e == null) {
                stop(null);
                return null;
            }
            lineNo++;
            if (e instanceof BinaryTraceReader.Problem p) {
                return bad(TraceError.BAD_RECORD, "", "byte " + p.at() + ": " + p.what());
            }
            BinaryTraceReader.Read read = (BinaryTraceReader.Read) e;
            TraceLine l = decoded(read.frame(), read.frame() instanceof Hello ? null : read.node());
            if (l != null) {
                return l;
            }
        }
        return null;
    }

    /** Reads up to the next newline (or the end of the file) into {@code line}; false at a clean end. */
    private boolean readLine() throws IOException {
        lineLen = 0;
        lineBytes = 0;
        inLine = false;
        while (true) {
            if (pos == limit) {
                int n = in.read(chunk, 0, CHUNK);
                if (n < 0) {
                    if (inLine) {
                        lineNo++;
                        return true;
                    }
                    return false;
                }
                pos = 0;
                limit = n;
                continue;
            }
            inLine = true;
            int nl = pos;
            while (nl < limit && chunk[nl] != '\n') {
                nl++;
            }
            append(pos, nl - pos);
            if (nl < limit) {
                pos = nl + 1;
                lineNo++;
                return true;
            }
            pos = limit;
        }
    }

    /** Keeps the bytes while the line is within the limit; an over-long line is only counted, never held. */
    private void append(int from, int len) {
        lineBytes += len;
        if (lineBytes > maxLineBytes) {
            return;
        }
        if (lineLen + len > line.length) {
            byte[] bigger = new byte[(int) Math.min(maxLineBytes, Math.max(line.length * 2L, lineLen + len))];
            System.arraycopy(line, 0, bigger, 0, lineLen);
            line = bigger;
        }
        System.arraycopy(chunk, from, line, lineLen, len);
        lineLen += len;
    }

    /** The line's entry or error; null for a blank line. */
    private TraceLine decodeLine() {
        if (lineBytes > maxLineBytes) {
            return bad(Decoded.Bad.TOO_LARGE, "", "line is " + lineBytes + " bytes, over the " + maxLineBytes
                    + "-byte limit");
        }
        int len = lineLen;
        if (len > 0 && line[len - 1] == '\r') {
            len--;
        }
        if (blank(len)) {
            return null;
        }
        String text;
        try {
            text = utf8.decode(ByteBuffer.wrap(line, 0, len)).toString();
        } catch (CharacterCodingException e) {
            return bad(TraceError.NOT_UTF8, "", "line is not UTF-8 text");
        }
        Decoded decoded = codec.decode(text);
        if (decoded instanceof Decoded.Bad b) {
            return bad(b.code(), b.path(), b.message());
        }
        Decoded.Ok ok = (Decoded.Ok) decoded;
        return decoded(ok.frame(), ok.node());
    }

    /** A decoded frame's entry, its producer told by {@code node} (a hello names its own), or its error. */
    private TraceLine decoded(Frame frame, String node) {
        if (frame instanceof Hello h) {
            hellos.put(h.node(), h);
            return entry(h.node(), h);
        }
        if (frame instanceof Welcome || frame instanceof Ack || frame instanceof ErrorFrame
                || frame instanceof ConfigFrame) {
            return bad(TraceError.NOT_PRODUCER_FRAME, "type", "a '" + frame.type()
                    + "' frame is sent by the gateway; a trace holds the frames of producers");
        }
        if (node == null) {
            if (hellos.size() == 1) {
                return entry(hellos.keySet().iterator().next(), frame);
            }
            return bad(TraceError.NO_NODE, "node", hellos.isEmpty()
                    ? "missing 'node' key, and no hello comes before this frame to say whose it is"
                    : "missing 'node' key, which a trace of " + hellos.size() + " producers needs ("
                    + names(hellos.keySet()) + ")");
        }
        if (!hellos.containsKey(node)) {
            return bad(TraceError.NO_HELLO, "node", "node '" + node + "' has not said hello before this frame");
        }
        return entry(node, frame);
    }

    private boolean blank(int len) {
        for (int i = 0; i < len; i++) {
            byte b = line[i];
            if (b != ' ' && b != '\t') {
                return false;
            }
        }
        return true;
    }

    private TraceEntry entry(String node, Frame frame) {
        entries++;
        return new TraceEntry(lineNo, node, frame);
    }

    private TraceError bad(String code, String path, String message) {
        badLines++;
        return new TraceError(source, lineNo, code, path, message);
    }

    /** Why the file cannot be read (further), as an error of the whole file. */
    private TraceError failure(IOException e) {
        if (e instanceof EOFException) {
            endedEarly = true;
            String where = lineNo == 0 && !inLine ? "before its first line"
                    : inLine ? "in the middle of line " + (lineNo + 1) + ", which is left out"
                    : "after line " + lineNo;
            return new TraceError(source, 0, TraceError.ENDED_EARLY, "", "ended early: the gzip stream breaks off "
                    + where + " (the recorder stopped before it finished the file)");
        }
        String what = e instanceof ZipException ? "gzip data is corrupt" : "cannot read";
        String where = lineNo == 0 ? "" : " after line " + lineNo;
        return new TraceError(source, 0, TraceError.UNREADABLE, "", what + where + ": " + reason(e));
    }

    /** The file system's reason without the path, which the error names already. */
    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage();
    }

    private void stop(TraceLine last) {
        ahead = last;
        close();
    }

    private static String names(Iterable<String> nodes) {
        List<String> some = new ArrayList<>();
        for (String n : nodes) {
            if (some.size() == 3) {
                some.add("…");
                break;
            }
            some.add(n);
        }
        return String.join(", ", some);
    }

    private static void close(InputStream s) {
        if (s == null) {
            return;
        }
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing was written; a failing close of a read stream loses nothing
        }
    }
}
