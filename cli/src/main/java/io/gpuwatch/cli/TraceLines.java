package io.gpuwatch.cli;

import io.gpuwatch.gateway.backtest.TraceFrame;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.gpuwatch.protocol.trace.BinaryTrace;
import io.gpuwatch.protocol.trace.BinaryTraceReader;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;

/**
 * The frames of a trace file (one protocol frame per line, or the binary form of protocol §8.1, told apart by its
 * first bytes; plain or gzipped when the name ends in {@code .gz}), streamed in file order. A line that is not a
 * valid frame is reported as {@code file:line: message} and skipped (a binary record as {@code file: byte N:}); a
 * read error ends the frames and is kept for {@link #failure()}. Decoding JSON is most of a backtest's work, so
 * one thread reads lines and a small pool decodes them in batches while the caller replays (a binary trace needs
 * only the reading thread); at most a few batches are held at a time. Problems are reported on the iterating
 * thread, in file order. Iterate once, then close.
 */
final class TraceLines implements Iterable<TraceFrame>, AutoCloseable {
    private static final int BATCH = 512;
    private static final int BINARY_BATCH = 64;
    /** Doubles in a 64-byte cache line. */
    private static final int DOUBLES_PER_LINE = 8;
    /** Where {@link #warm} leaves what it read, so that the JIT keeps the loads. */
    private static volatile long warmed;

    private final Path file;
    private final Consumer<String> problems;
    private final FrameCodec codec = new FrameCodec();
    private final long size;
    private final AtomicLong bytesRead = new AtomicLong();
    private final InputStream in;
    private final ExecutorService decoders;
    private final BlockingQueue<CompletableFuture<Batch>> batches;
    private final Thread lineReader;
    private long badLines;
    private String failure;

    /** Decoded lines of one batch: a frame or a problem per line, in order; {@code failure} ends the file. */
    private record Batch(List<Object> items, String failure, boolean last) {
    }

    /** Opens the file and starts reading ahead; {@code problems} hears about every line that is skipped. */
    TraceLines(Path file, Consumer<String> problems) throws IOException {
        this.file = file;
        this.problems = problems;
        this.size = Files.size(file);
        InputStream in = new Counting(Files.newInputStream(file), bytesRead);
        boolean binary;
        try {
            if (file.getFileName().toString().endsWith(".gz")) {
                in = new GZIPInputStream(in, 64 * 1024);
            }
            PushbackInputStream head = new PushbackInputStream(in, BinaryTrace.MAGIC_BYTES);
            binary = BinaryTrace.starts(head);
            in = head;
        } catch (IOException e) {
            in.close();
            throw e;
        }
        this.in = in;
        int threads = Math.min(8, Runtime.getRuntime().availableProcessors());
        this.decoders = Executors.newFixedThreadPool(threads, r -> daemon(r, "trace-decoder"));
        // a binary trace is read far faster than it is replayed: frames queued longer would outlive the young
        // generation and be copied and promoted, which costs the replay more than reading them did
        this.batches = new ArrayBlockingQueue<>(binary ? 2 : threads * 4);
        this.lineReader = daemon(binary ? this::readBinary : this::readAhead, "trace-reader");
        lineReader.start();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Bytes of the file read so far, compressed bytes for a gzipped file. */
    long bytesRead() {
        return bytesRead.get();
    }

    /** The file's size in bytes. */
    long size() {
        return size;
    }

    long badLines() {
        return badLines;
    }

    /** Why reading stopped before the end of the file, or null. */
    String failure() {
        return failure;
    }

    /** The reader thread: lines in batches to the decoders, their futures queued in file order. */
    private void readAhead() {
        Lines lines = new Lines();
        try {
            while (true) {
                Chunk chunk;
                String failed = null;
                try {
                    chunk = lines.next();
                } catch (IOException e) {
                    chunk = lines.rest();
                    failed = file + ":" + (chunk.firstLine() + chunk.count()) + ": cannot read further: "
                            + e.getMessage();
                }
                Chunk c = chunk;
                String f = failed;
                boolean last = c.last() || failed != null;
                batches.put(CompletableFuture.supplyAsync(() -> decode(c, f, last), decoders));
                if (last) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            // closed before the end: nobody waits for the rest
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The reader thread of a binary trace (protocol §8.1): its records need no decoding pool, only reading in
     * order, so this thread reads them in batches and queues them ready.
     */
    private void readBinary() {
        BinaryTraceReader reader = new BinaryTraceReader(in, file.toString(), codec.limits());
        try {
            while (true) {
                List<Object> items = new ArrayList<>(BINARY_BATCH);
                String failed = null;
                boolean last = false;
                try {
                    while (items.size() < BINARY_BATCH) {
                        BinaryTraceReader.Entry e = reader.next();
                        if (e == null) {
                            last = true;
                            break;
                        }
                        items.add(e instanceof BinaryTraceReader.Read r ? new TraceFrame(r.node(), r.frame())
                                : ((BinaryTraceReader.Problem) e).message());
                    }
                } catch (IOException e) {
                    failed = file + ": cannot read further: " + e.getMessage();
                    last = true;
                }
                batches.put(CompletableFuture.completedFuture(new Batch(items, failed, last)));
                if (last) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            // closed before the end: nobody waits for the rest
            Thread.currentThread().interrupt();
        }
    }

    private Batch decode(Chunk chunk, String failed, boolean last) {
        List<Object> items = new ArrayList<>(chunk.count());
        byte[] bytes = chunk.bytes();
        for (int i = 0; i < chunk.count(); i++) {
            int from = chunk.starts()[i];
            int to = chunk.ends()[i];
            if (blank(bytes, from, to)) {
                continue;
            }
            Decoded d = codec.decode(bytes, from, to);
            if (d instanceof Decoded.Bad bad) {
                items.add(where(chunk.firstLine() + i) + bad.message());
            } else if (d instanceof Decoded.Ok ok) {
                String node = ok.frame() instanceof Hello h ? h.node() : ok.node();
                items.add(node == null
                        ? where(chunk.firstLine() + i) + "a " + ok.frame().type()
                                + " frame without the \"node\" key that names its producer"
                        : new TraceFrame(node, ok.frame()));
            }
        }
        return new Batch(items, failed, last);
    }

    /** Whether the line is empty or white space only, as {@link String#isBlank()} sees its text. */
    private static boolean blank(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] < 0) {
                return new String(bytes, from, to - from, StandardCharsets.UTF_8).isBlank();
            }
            if (!Character.isWhitespace(bytes[i])) {
                return false;
            }
        }
        return true;
    }

    /** Lines of one batch: {@code bytes[starts[i], ends[i])} is line {@code firstLine + i}. */
    private record Chunk(byte[] bytes, int[] starts, int[] ends, int count, long firstLine, boolean last) {
    }

    /**
     * Cuts the file into lines as {@link java.io.BufferedReader#readLine()} does (ended by LF, CR or CR LF; a last line
     * without an end counts), {@link #BATCH} lines or about a megabyte at a time, without decoding text.
     */
    private final class Lines {
        private static final int CHUNK = 1 << 20;
        private byte[] buf = new byte[CHUNK];
        /** Bytes of {@code buf} read but not yet cut into lines start at {@code from} and end at {@code filled}. */
        private int from;
        private int filled;
        private boolean eof;
        private boolean skipLf;
        private long nextLine = 1;
        private int[] starts = new int[BATCH];
        private int[] ends = new int[BATCH];
        private int count;
        private byte[] cut;

        /** The next batch of lines; the last one when the file ends. */
        Chunk next() throws IOException {
            startChunk();
            while (count < BATCH) {
                if (!cutLine()) {
                    if (eof) {
                        if (from < filled) {
                            addLine(from, filled);
                            from = filled;
                        }
                        return chunk(true);
                    }
                    if (count > 0 && filled == buf.length) {
                        break;
                    }
                    fill();
                }
            }
            return chunk(false);
        }

        /** The lines cut before a read failed. */
        Chunk rest() {
            return chunk(true);
        }

        private void startChunk() {
            count = 0;
            starts = new int[BATCH];
            ends = new int[BATCH];
            // a batch keeps its own bytes; the decoders read them while the next batch is cut
            byte[] next = new byte[Math.max(CHUNK, filled - from)];
            System.arraycopy(buf, from, next, 0, filled - from);
            filled -= from;
            from = 0;
            buf = next;
            cut = buf;
        }

        /** Cuts one whole line from the unread bytes; false when they hold no line end. */
        private boolean cutLine() {
            if (skipLf && from < filled) {
                skipLf = false;
                if (buf[from] == '\n') {
                    from++;
                }
            }
            for (int i = from; i < filled; i++) {
                byte c = buf[i];
                if (c == '\n' || c == '\r') {
                    addLine(from, i);
                    from = i + 1;
                    skipLf = c == '\r';
                    return true;
                }
            }
            return false;
        }

        private void addLine(int start, int end) {
            starts[count] = start;
            ends[count] = end;
            count++;
            nextLine++;
        }

        /** Reads more bytes after the unread ones, growing the buffer for a line longer than it. */
        private void fill() throws IOException {
            if (filled == buf.length) {
                // only while no line is cut yet (next() hands those on first): one line longer than the buffer
                byte[] bigger = new byte[buf.length * 2];
                System.arraycopy(buf, 0, bigger, 0, filled);
                buf = bigger;
                cut = buf;
            }
            int n = in.read(buf, filled, buf.length - filled);
            if (n < 0) {
                eof = true;
            } else {
                filled += n;
            }
        }

        private Chunk chunk(boolean last) {
            return new Chunk(cut, starts, ends, count, nextLine - count, last);
        }
    }

    /** The place of a line in messages, built only for a line that has a problem. */
    private String where(long line) {
        return file + ":" + line + ": ";
    }

    @Override
    public Iterator<TraceFrame> iterator() {
        return new Iterator<>() {
            private Batch batch;
            private int at;
            private boolean done;
            private TraceFrame next;

            @Override
            public boolean hasNext() {
                while (next == null && !done) {
                    if (batch == null || at == batch.items().size()) {
                        if (batch != null && batch.last()) {
                            failure = batch.failure();
                            done = true;
                            break;
                        }
                        batch = take();
                        at = 0;
                        continue;
                    }
                    Object item = batch.items().get(at++);
                    if (item instanceof TraceFrame f) {
                        next = f;
                    } else {
                        badLines++;
                        problems.accept((String) item);
                    }
                }
                return next != null;
            }

            @Override
            public TraceFrame next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                TraceFrame f = next;
                next = null;
                return f;
            }
        };
    }

    private Batch take() {
        try {
            return warm(batches.take().get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Batch(List.of(), file + ": reading was interrupted", true);
        } catch (ExecutionException e) {
            return new Batch(List.of(), file + ": cannot decode: " + e.getCause(), true);
        }
    }

    /**
     * Reads a word of every cache line of the batch's card readings before the replay reads any of them. They were
     * decoded on another core, so the first read of each misses the cache; made here, together and independent of
     * each other, the misses overlap, where the replay would otherwise stall on them one reading at a time
     * (docs/performance.md, issue 15, seventh round).
     */
    private static Batch warm(Batch batch) {
        long sum = 0;
        for (Object item : batch.items()) {
            if (item instanceof TraceFrame f && f.frame() instanceof Sample sample) {
                for (CardReading r : sample.cards()) {
                    sum += r.uuid().length() + r.processes().size();
                    MetricValues values = r.values();
                    for (int m = 0; m < Metric.count(); m += DOUBLES_PER_LINE) {
                        sum += Double.doubleToRawLongBits(values.get(m));
                    }
                }
            }
        }
        warmed = sum;
        return batch;
    }

    @Override
    public void close() throws IOException {
        lineReader.interrupt();
        decoders.shutdownNow();
        in.close();
    }

    /** Counts the bytes that pass, for progress over compressed files too. */
    private static final class Counting extends FilterInputStream {
        private final AtomicLong count;

        Counting(InputStream in, AtomicLong count) {
            super(in);
            this.count = count;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count.incrementAndGet();
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count.addAndGet(n);
            }
            return n;
        }
    }
}
