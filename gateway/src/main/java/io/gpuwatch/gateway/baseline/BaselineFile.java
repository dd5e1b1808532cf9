package io.gpuwatch.gateway.baseline;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps a {@link BaselineBook} across restarts: one JSON object per learned series, one per line, written to a
 * temporary file and moved over the old one so a crash mid-write leaves the previous file whole. Reading takes
 * every good line and reports each bad one with its line number; a week of learning is not thrown away for one
 * damaged line. Runs on a worker thread: the caller snapshots on the event loop ({@link #encode}) and writes the
 * text elsewhere.
 */
public final class BaselineFile {
    private static final JsonFactory JSON = new JsonFactory();
    private static final int VERSION = 1;

    private BaselineFile() {
    }

    /** What a read found: the number of series restored and a message per line that could not be. */
    public record Loaded(int series, List<String> problems) {
        public Loaded {
            problems = List.copyOf(problems);
        }
    }

    /** The book as file text; call on the thread that owns the book. */
    public static String encode(BaselineBook book) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("v", VERSION);
            g.writeEndObject();
            g.writeRaw('\n');
            for (BaselineBook.Key k : book.keys()) {
                BaselineBook.Learner l = book.learners().get(k);
                g.writeStartObject();
                g.writeStringField("business", k.business());
                g.writeStringField("metric", k.metric());
                g.writeNumberField("first", l.firstMinute);
                g.writeNumberField("minute", l.minute);
                g.writeNumberField("sum", l.minuteSum);
                g.writeNumberField("count", l.minuteCount);
                g.writeFieldName("all");
                moments(g, l.all);
                g.writeFieldName("hours");
                g.writeStartObject();
                for (int h = 0; h < BaselineBook.HOURS_OF_WEEK; h++) {
                    if (l.hours[h].samples > 0) {
                        g.writeFieldName(Integer.toString(h));
                        moments(g, l.hours[h]);
                    }
                }
                g.writeEndObject();
                g.writeEndObject();
                g.flush();
                out.write('\n');
            }
        } catch (IOException e) {
            throw new IllegalStateException("writing JSON to memory cannot fail", e);
        }
        return out.toString();
    }

    private static void moments(JsonGenerator g, BaselineBook.Moments m) throws IOException {
        g.writeStartArray();
        g.writeNumber(m.mean);
        g.writeNumber(m.variance);
        g.writeNumber(m.samples);
        g.writeEndArray();
    }

    /** Writes {@code text} (from {@link #encode}) to {@code file}, replacing it only once it is complete. */
    public static void write(Path file, String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        try {
            try (BufferedWriter w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                w.write(text);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Restores into an empty {@code book} what {@code file} holds; a missing file is an empty history. */
    public static Loaded read(Path file, BaselineBook book) throws IOException {
        List<String> problems = new ArrayList<>();
        int series = 0;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            int lineNo = 0;
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    if (lineNo == 1) {
                        version(line);
                    } else {
                        restore(line, book);
                        series++;
                    }
                } catch (IOException | IllegalArgumentException e) {
                    problems.add(file + ":" + lineNo + ": " + e.getMessage());
                    if (lineNo == 1) {
                        return new Loaded(0, problems);
                    }
                }
            }
        } catch (NoSuchFileException e) {
            return new Loaded(0, List.of());
        }
        return new Loaded(series, problems);
    }

    private static void version(String line) throws IOException {
        try (JsonParser p = JSON.createParser(line)) {
            expect(p.nextToken() == JsonToken.START_OBJECT, "expected the header {\"v\":1}");
            expect(p.nextToken() == JsonToken.FIELD_NAME && "v".equals(p.currentName()), "expected the header {\"v\":1}");
            p.nextToken();
            int v = p.getIntValue();
            expect(v == VERSION, "baseline file version " + v + " is not " + VERSION + " (written by another gpuwatch?)");
        }
    }

    private static void restore(String line, BaselineBook book) throws IOException {
        String business = null;
        String metric = null;
        long first = Long.MIN_VALUE;
        long minute = Long.MIN_VALUE;
        double sum = 0;
        int count = 0;
        BaselineBook.Moments all = null;
        BaselineBook.Moments[] hours = new BaselineBook.Moments[BaselineBook.HOURS_OF_WEEK];
        try (JsonParser p = JSON.createParser(line)) {
            expect(p.nextToken() == JsonToken.START_OBJECT, "expected a JSON object");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "business" -> business = p.getValueAsString();
                    case "metric" -> metric = p.getValueAsString();
                    case "first" -> first = p.getLongValue();
                    case "minute" -> minute = p.getLongValue();
                    case "sum" -> sum = p.getDoubleValue();
                    case "count" -> count = p.getIntValue();
                    case "all" -> all = moments(p, "all");
                    case "hours" -> {
                        expect(p.currentToken() == JsonToken.START_OBJECT, "hours: expected an object");
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            int h = parseHour(p.currentName());
                            p.nextToken();
                            hours[h] = moments(p, "hours." + h);
                        }
                    }
                    default -> throw new IllegalArgumentException("unknown field '" + field + "'");
                }
            }
        }
        expect(business != null && metric != null, "business and metric are required");
        expect(first != Long.MIN_VALUE && all != null, "first and all are required");
        BaselineBook.Learner l = new BaselineBook.Learner(first * 60_000);
        l.minute = minute;
        l.minuteSum = sum;
        l.minuteCount = count;
        copy(all, l.all);
        for (int h = 0; h < hours.length; h++) {
            if (hours[h] != null) {
                copy(hours[h], l.hours[h]);
            }
        }
        book.put(new BaselineBook.Key(business, metric), l);
    }

    private static int parseHour(String name) {
        int h;
        try {
            h = Integer.parseInt(name);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("hours: '" + name + "' is not an hour of the week");
        }
        expect(h >= 0 && h < BaselineBook.HOURS_OF_WEEK, "hours: " + h + " is not an hour of the week (0-167)");
        return h;
    }

    private static BaselineBook.Moments moments(JsonParser p, String field) throws IOException {
        expect(p.currentToken() == JsonToken.START_ARRAY, field + ": expected [mean, variance, samples]");
        BaselineBook.Moments m = new BaselineBook.Moments();
        p.nextToken();
        m.mean = p.getDoubleValue();
        p.nextToken();
        m.variance = p.getDoubleValue();
        p.nextToken();
        m.samples = p.getLongValue();
        expect(p.nextToken() == JsonToken.END_ARRAY, field + ": expected [mean, variance, samples]");
        expect(Double.isFinite(m.mean) && m.variance >= 0 && m.samples >= 0, field + ": values out of range");
        return m;
    }

    private static void copy(BaselineBook.Moments from, BaselineBook.Moments to) {
        to.mean = from.mean;
        to.variance = from.variance;
        to.samples = from.samples;
    }

    private static void expect(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
