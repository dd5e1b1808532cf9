package io.gpuwatch.probe.trace;

import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.trace.TraceNames;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * Appends frames to a trace (protocol §8): one JSON object per line, a hello as it is, every other frame with its
 * producer's {@code "node"} key, or the binary form of §8.1 when the file name ends in {@code .gwt} or
 * {@code .gwt.gz}; gzipped when the file name ends in {@code .gz}. Encoding and I/O happen on one
 * writer thread, so {@link #write} never blocks and may be called from an event loop. The queue is bounded for
 * readings: when it is full a sample (app, sched) is dropped and counted, while events and hellos are always
 * taken. What is written reaches the file at least once a second; {@link #close()} writes the rest and the gzip
 * trailer. Thread-safe.
 */
public final class TraceWriter implements AutoCloseable {
    /** Queued frames beyond which readings are shed: some four minutes of 32 nodes at 1 Hz. */
    public static final int DEFAULT_CAPACITY = 8192;

    private static final Logger LOG = Logger.getLogger(TraceWriter.class.getName());
    private static final long FLUSH_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final Pattern NODE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,253}");

    private sealed interface Item permits Line, FlushRequest, Stop {
    }

    private record Line(Frame frame, String node) implements Item {
    }

    private record FlushRequest(CompletableFuture<Void> done) implements Item {
    }

    private enum Stop implements Item { STOP }

    private final String name;
    private final int capacity;
    private final TraceSink out;
    private final LinkedBlockingQueue<Item> queue = new LinkedBlockingQueue<>();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final AtomicLong droppedReadings = new AtomicLong();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private final Thread thread;
    private volatile long written;
    private volatile IOException failure;

    /** A writer appending to the file (created if absent), gzipped when its name ends in {@code .gz}. */
    public static TraceWriter open(Path file) throws IOException {
        return open(file, DEFAULT_CAPACITY);
    }

    /** Likewise, shedding readings once {@code capacity} frames wait to be written. */
    public static TraceWriter open(Path file, int capacity) throws IOException {
        Path name = file.getFileName();
        boolean gzip = name != null && TraceNames.gzip(name.toString());
        boolean binary = name != null && TraceNames.binary(name.toString());
        OutputStream sink = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                StandardOpenOption.WRITE);
        try {
            return new TraceWriter(sink, gzip, binary, file.toString(), capacity);
        } catch (IOException | RuntimeException e) {
            sink.close();
            throw e;
        }
    }

    /**
     * A writer of JSON lines onto any stream, which it closes on {@link #close()}.
     *
     * @param name names the trace in log lines and errors
     */
    public TraceWriter(OutputStream sink, boolean gzip, String name, int capacity) throws IOException {
        this(sink, gzip, false, name, capacity);
    }

    /** Likewise, in the binary form of protocol §8.1 when {@code binary}. */
    public TraceWriter(OutputStream sink, boolean gzip, boolean binary, String name, int capacity)
            throws IOException {
        if (capacity < 1) {
            throw new IllegalArgumentException("a trace writer needs room for at least one frame, got " + capacity);
        }
        this.name = name;
        this.capacity = capacity;
        this.out = new TraceSink(sink, gzip, binary);
        this.thread = new Thread(this::run, "gpuwatch-trace-writer");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Queues a frame: a hello ({@code node} null or the hello's own), or a sample, event, app or sched frame of
     * producer {@code node}. Never blocks.
     *
     * @return false when the frame was not taken: a reading shed from a full queue, or anything after close
     */
    public boolean write(Frame frame, String node) {
        if (frame instanceof Hello h) {
            if (node != null && !node.equals(h.node())) {
                throw new IllegalArgumentException("a hello of node '" + h.node() + "' cannot be recorded for node '"
                        + node + "'");
            }
        } else if (!FrameStamps.numbered(frame)) {
            throw new IllegalArgumentException("a trace holds producer frames, not '" + frame.type() + "'");
        } else if (node == null || !NODE_NAME.matcher(node).matches()) {
            throw new IllegalArgumentException("a '" + frame.type() + "' frame needs a valid producer node, got "
                    + (node == null ? "none" : "'" + node + "'"));
        }
        if (closing.get()) {
            return false;
        }
        if (FrameStamps.reading(frame) && queue.size() >= capacity) {
            droppedReadings.incrementAndGet();
            return false;
        }
        queue.add(new Line(frame, node));
        return true;
    }

    /** Completes once every frame queued before it is in the file; fails if writing has failed. */
    public CompletableFuture<Void> flush() {
        if (closing.get()) {
            return ended.copy();
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        queue.add(new FlushRequest(done));
        return done;
    }

    /** The counters as they are now. */
    public TraceWriterStats stats() {
        IOException f = failure;
        return new TraceWriterStats(written, droppedReadings.get(), queue.size(), f == null ? null : f.getMessage());
    }

    /**
     * Writes what is queued, ends the gzip stream and closes the file, waiting for the writer thread: call it
     * off the event loop. Fails if any of the trace could not be written.
     */
    @Override
    public void close() throws IOException {
        if (closing.compareAndSet(false, true)) {
            queue.add(Stop.STOP);
        }
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(name + ": interrupted while writing the rest of the trace");
        }
        IOException f = failure;
        if (f != null) {
            throw new IOException(name + ": trace incomplete: " + f.getMessage(), f);
        }
    }

    private void run() {
        long nextFlush = System.nanoTime() + FLUSH_EVERY_NANOS;
        boolean dirty = false;
        try {
            while (true) {
                long now = System.nanoTime();
                if (now - nextFlush >= 0) {
                    if (dirty) {
                        flushOut();
                        dirty = false;
                    }
                    nextFlush = now + FLUSH_EVERY_NANOS;
                }
                Item item = queue.poll(nextFlush - now, TimeUnit.NANOSECONDS);
                if (item instanceof Line line) {
                    writeLine(line);
                    dirty = true;
                } else if (item instanceof FlushRequest request) {
                    flushOut();
                    dirty = false;
                    finishRequest(request.done());
                } else if (item == Stop.STOP) {
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            finish();
        }
    }

    private void writeLine(Line line) {
        if (failure != null) {
            return;
        }
        try {
            out.write(line.frame(), line.node());
            written++;
        } catch (IOException e) {
            failed(e);
        }
    }

    private void flushOut() {
        if (failure != null) {
            return;
        }
        try {
            out.flush();
        } catch (IOException e) {
            failed(e);
        }
    }

    private void finish() {
        try {
            out.close();
        } catch (IOException e) {
            if (failure == null) {
                failed(e);
            }
        }
        // frames raced with close() and missed the writer; only the flushes waiting on them need an answer
        for (Item item; (item = queue.poll()) != null; ) {
            if (item instanceof FlushRequest request) {
                finishRequest(request.done());
            }
        }
        finishRequest(ended);
    }

    private void finishRequest(CompletableFuture<Void> done) {
        IOException f = failure;
        if (f == null) {
            done.complete(null);
        } else {
            done.completeExceptionally(f);
        }
    }

    private void failed(IOException e) {
        failure = e;
        LOG.warning(() -> name + ": cannot write the trace, recording stops: " + e.getMessage());
    }
}
