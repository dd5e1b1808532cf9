package io.gpuwatch.gateway.checkpoint;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.gpuwatch.gateway.state.CardImage;
import io.gpuwatch.gateway.state.NodeImage;
import io.gpuwatch.gateway.state.ScopeImage;
import io.gpuwatch.gateway.window.EventLog;
import io.gpuwatch.gateway.window.MetricWindow;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.codec.Decoded;
import io.gpuwatch.protocol.codec.FrameCodec;
import io.gpuwatch.rules.eval.AlertImage;
import io.gpuwatch.rules.eval.AlertState;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An {@link Evaluation} as JSON lines: a header {@code {"v":1,"at":…}}, then one line per node, one per card
 * (after its node's), one per task, replica and queue (with the windows only), one per pending or firing alert. A window's arrays are base64 of little-endian floats.
 * Written to a temporary file and moved over the old one, so a crash mid-write leaves the previous file whole;
 * read line by line, each damaged line reported with file:line and skipped, so one bad line costs one node, card or
 * alert, never the start. Called on worker threads: the images are copies the event loop no longer touches.
 */
public final class EvaluationFile {
    /** The file's name in the data directory. */
    public static final String FILE_NAME = "evaluation.jsonl";

    private static final int VERSION = 1;
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION).build();
    private static final FrameCodec CODEC = new FrameCodec();

    private EvaluationFile() {
    }

    /** What a read found, and a message naming file:line for each line that could not be taken. */
    public record Loaded(Evaluation evaluation, List<String> problems) {
        public Loaded {
            problems = List.copyOf(problems);
        }
    }

    /** Writes {@code e} to {@code file}, replacing it only once the new text is complete on disk. */
    public static void write(Path file, Evaluation e) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        try {
            // UTF-8 bytes straight from the generator: a 50,000-card file is hundreds of megabytes, and a Writer
            // would encode every character a second time
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 20);
                 JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
                encode(e, g);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException ex) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** {@code e} as text, the form a cluster shares a node's part in. */
    public static String encode(Evaluation e) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            encode(e, g);
        } catch (IOException ex) {
            throw new IllegalStateException("writing JSON to memory cannot fail", ex);
        }
        return out.toString();
    }

    private static void encode(Evaluation e, JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeNumberField("v", VERSION);
        g.writeNumberField("at", e.at());
        g.writeEndObject();
        g.writeRaw('\n');
        for (NodeImage n : e.nodes()) {
            node(g, n);
            g.writeRaw('\n');
            for (CardImage c : n.cards()) {
                card(g, n.name(), c);
                g.writeRaw('\n');
            }
        }
        for (ScopeImage s : e.scopes()) {
            scope(g, s);
            g.writeRaw('\n');
        }
        for (AlertImage a : e.alerts()) {
            alert(g, a);
            g.writeRaw('\n');
        }
    }

    private static void scope(JsonGenerator g, ScopeImage s) throws IOException {
        g.writeStartObject();
        g.writeStringField(s.kind().name().toLowerCase(Locale.ROOT), s.name());
        optional(g, "node", s.node());
        optional(g, "owner", s.owner());
        optional(g, "business", s.business());
        optional(g, "queue", s.queue());
        windows(g, s.windows());
        g.writeEndObject();
    }

    private static void node(JsonGenerator g, NodeImage n) throws IOException {
        g.writeStartObject();
        g.writeStringField("node", n.name());
        if (n.hello() != null) {
            g.writeStringField("hello", CODEC.encode(n.hello()));
        }
        g.writeNumberField("heard", n.lastFrameAt());
        g.writeNumberField("heldSeq", n.heldSeq());
        g.writeNumberField("eventSeq", n.eventSeq());
        g.writeArrayFieldStart("lost");
        for (String uuid : n.lost()) {
            g.writeString(uuid);
        }
        g.writeEndArray();
        events(g, n.events());
        g.writeEndObject();
    }

    private static void card(JsonGenerator g, String node, CardImage c) throws IOException {
        g.writeStartObject();
        g.writeStringField("card", c.uuid());
        g.writeStringField("node", node);
        g.writeNumberField("sampled", c.lastSampleAt());
        optional(g, "task", c.task());
        optional(g, "owner", c.owner());
        optional(g, "business", c.business());
        events(g, c.events());
        windows(g, c.windows());
        g.writeEndObject();
    }

    private static void windows(JsonGenerator g, List<CardImage.Window> windows) throws IOException {
        g.writeArrayFieldStart("windows");
        for (CardImage.Window w : windows) {
            MetricWindow.Image i = w.image();
            g.writeStartObject();
            g.writeStringField("series", w.series());
            g.writeNumberField("ms", w.windowMs());
            g.writeBooleanField("transitions", w.transitions());
            g.writeNumberField("newest", i.newestSlot());
            g.writeNumberField("newestBucket", i.newestBucket());
            g.writeNumberField("rolled", i.rolledSlot());
            g.writeNumberField("rolledValue", Float.floatToRawIntBits(i.rolledValue()));
            g.writeNumberField("moved", i.lastMoveSlot());
            g.writeNumberField("movedBucket", i.lastMoveBucket());
            g.writeFieldName("values");
            g.writeBinary(floats(i.values()));
            g.writeFieldName("counts");
            g.writeBinary(i.counts());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void alert(JsonGenerator g, AlertImage a) throws IOException {
        g.writeStartObject();
        g.writeStringField("alert", a.rule());
        g.writeStringField("instance", a.instance());
        g.writeStringField("state", a.state().name());
        g.writeNumberField("since", a.activeSince());
        g.writeNumberField("falseSince", a.falseSince());
        if (a.labels() != null) {
            g.writeObjectFieldStart("labels");
            for (Map.Entry<String, String> l : a.labels().entrySet()) {
                g.writeStringField(l.getKey(), l.getValue());
            }
            g.writeEndObject();
            optional(g, "summary", a.summary());
            optional(g, "description", a.description());
        }
        g.writeEndObject();
    }

    private static void optional(JsonGenerator g, String field, String value) throws IOException {
        if (value != null) {
            g.writeStringField(field, value);
        }
    }

    private static void events(JsonGenerator g, List<EventLog.Entry> events) throws IOException {
        g.writeArrayFieldStart("events");
        for (EventLog.Entry e : events) {
            g.writeStartArray();
            g.writeNumber(e.ts());
            g.writeString(e.kind());
            g.writeNumber(e.code());
            g.writeEndArray();
        }
        g.writeEndArray();
    }

    private static byte[] floats(float[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        return b.array();
    }

    /** Reads {@code file}; a missing file is nothing held. Never throws for what the file holds. */
    public static Loaded read(Path file) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(in, file.toString());
        } catch (NoSuchFileException e) {
            return new Loaded(Evaluation.EMPTY, List.of());
        }
    }

    /** Reads {@code text} (from {@link #encode}); {@code origin} names it in problems. */
    public static Loaded decode(String text, String origin) {
        try {
            return read(new BufferedReader(new StringReader(text)), origin);
        } catch (IOException e) {
            throw new IllegalStateException("reading memory cannot fail", e);
        }
    }

    private static Loaded read(BufferedReader in, String origin) throws IOException {
        List<String> problems = new ArrayList<>();
        Map<String, Building> nodes = new LinkedHashMap<>();
        List<AlertImage> alerts = new ArrayList<>();
        List<ScopeImage> scopes = new ArrayList<>();
        long at = 0;
        int lineNo = 0;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            lineNo++;
            if (line.isBlank()) {
                continue;
            }
            try {
                if (lineNo == 1) {
                    at = header(line);
                } else {
                    take(line, nodes, alerts, scopes);
                }
            } catch (IOException | RuntimeException e) {
                // a damaged line of any kind costs that line; the parser's own messages name the column
                problems.add(origin + ":" + lineNo + ": " + e.getMessage() + (lineNo == 1
                        ? "; nothing of the file is taken" : "; the line is skipped"));
                if (lineNo == 1) {
                    return new Loaded(Evaluation.EMPTY, problems);
                }
            }
        }
        List<NodeImage> built = new ArrayList<>(nodes.size());
        for (Building b : nodes.values()) {
            built.add(b.node.withCards(b.cards, b.node.heldSeq()));
        }
        return new Loaded(new Evaluation(at, built, alerts, scopes), problems);
    }

    /** A node line read, and the card lines read after it so far. */
    private record Building(NodeImage node, List<CardImage> cards) {
    }

    private static long header(String line) throws IOException {
        int v = -1;
        long at = -1;
        try (JsonParser p = JSON.createParser(line)) {
            expect(p.nextToken() == JsonToken.START_OBJECT, "expected the header {\"v\":1,\"at\":…}");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "v" -> v = p.getIntValue();
                    case "at" -> at = p.getLongValue();
                    default -> throw new IllegalArgumentException("header: unknown field '" + field + "'");
                }
            }
        }
        expect(v == VERSION, "evaluation file version " + v + " is not " + VERSION
                + " (written by another gpuwatch?)");
        expect(at >= 0, "header: at is required");
        return at;
    }

    private static void take(String line, Map<String, Building> nodes, List<AlertImage> alerts,
                             List<ScopeImage> scopes) throws IOException {
        try (JsonParser p = JSON.createParser(line)) {
            expect(p.nextToken() == JsonToken.START_OBJECT, "expected a JSON object");
            expect(p.nextToken() == JsonToken.FIELD_NAME, "expected a node, card, task, replica, queue or alert line");
            String kind = p.currentName();
            p.nextToken();
            String name = text(p, kind);
            switch (kind) {
                case "node" -> {
                    NodeImage n = node(p, name);
                    expect(!nodes.containsKey(name), "node '" + name + "' twice");
                    nodes.put(name, new Building(n, new ArrayList<>()));
                }
                case "card" -> {
                    Card c = card(p, name);
                    Building b = nodes.get(c.node);
                    expect(b != null, "card '" + name + "' names node '" + c.node + "', which no line before it holds");
                    b.cards.add(c.image);
                }
                case "alert" -> alerts.add(alert(p, name));
                case "task" -> scopes.add(scope(p, ScopeImage.Kind.TASK, name));
                case "replica" -> scopes.add(scope(p, ScopeImage.Kind.REPLICA, name));
                case "queue" -> scopes.add(scope(p, ScopeImage.Kind.QUEUE, name));
                default -> throw new IllegalArgumentException("expected a node, card, task, replica, queue or alert line, not '"
                        + kind + "'");
            }
            expect(p.nextToken() == null, "text after the object");
        }
    }

    private static NodeImage node(JsonParser p, String name) throws IOException {
        Hello hello = null;
        long heard = Long.MIN_VALUE;
        long heldSeq = 0;
        long eventSeq = 0;
        List<String> lost = new ArrayList<>();
        List<EventLog.Entry> events = List.of();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "hello" -> hello = hello(text(p, field), name);
                case "heard" -> heard = number(p, field);
                case "heldSeq" -> heldSeq = number(p, field);
                case "eventSeq" -> eventSeq = number(p, field);
                case "lost" -> {
                    expect(p.currentToken() == JsonToken.START_ARRAY, "lost: expected an array of uuids");
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        lost.add(text(p, "lost[]"));
                    }
                }
                case "events" -> events = events(p);
                default -> throw new IllegalArgumentException("node: unknown field '" + field + "'");
            }
        }
        expect(heard != Long.MIN_VALUE, "node '" + name + "': heard is required");
        expect(heldSeq >= 0 && eventSeq >= 0, "node '" + name + "': a seq is negative");
        return new NodeImage(name, hello, heard, lost, events, List.of(), heldSeq, eventSeq);
    }

    private static Hello hello(String text, String node) {
        Decoded d = CODEC.decode(text);
        if (d instanceof Decoded.Bad bad) {
            throw new IllegalArgumentException("hello: " + bad.message());
        }
        expect(((Decoded.Ok) d).frame() instanceof Hello h && h.node().equals(node),
                "hello: not the hello of node '" + node + "'");
        return (Hello) ((Decoded.Ok) d).frame();
    }

    private record Card(String node, CardImage image) {
    }

    private static Card card(JsonParser p, String uuid) throws IOException {
        String node = null;
        long sampled = Long.MIN_VALUE;
        String task = null;
        String owner = null;
        String business = null;
        List<EventLog.Entry> events = List.of();
        List<CardImage.Window> windows = List.of();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "node" -> node = text(p, field);
                case "sampled" -> sampled = number(p, field);
                case "task" -> task = text(p, field);
                case "owner" -> owner = text(p, field);
                case "business" -> business = text(p, field);
                case "events" -> events = events(p);
                case "windows" -> windows = windows(p);
                default -> throw new IllegalArgumentException("card: unknown field '" + field + "'");
            }
        }
        expect(node != null, "card '" + uuid + "': node is required");
        expect(sampled != Long.MIN_VALUE, "card '" + uuid + "': sampled is required");
        return new Card(node, new CardImage(uuid, sampled, task, owner, business, events, windows));
    }

    private static ScopeImage scope(JsonParser p, ScopeImage.Kind kind, String name) throws IOException {
        String what = kind.name().toLowerCase(Locale.ROOT);
        String node = null;
        String owner = null;
        String business = null;
        String queue = null;
        List<CardImage.Window> windows = List.of();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "node" -> node = text(p, field);
                case "owner" -> owner = text(p, field);
                case "business" -> business = text(p, field);
                case "queue" -> queue = text(p, field);
                case "windows" -> windows = windows(p);
                default -> throw new IllegalArgumentException(what + ": unknown field '" + field + "'");
            }
        }
        expect(kind != ScopeImage.Kind.REPLICA || node != null, "replica of task '" + name + "': node is required");
        return new ScopeImage(kind, name, node, owner, business, queue, windows);
    }

    private static List<CardImage.Window> windows(JsonParser p) throws IOException {
        expect(p.currentToken() == JsonToken.START_ARRAY, "windows: expected an array");
        List<CardImage.Window> windows = new ArrayList<>();
        while (p.nextToken() == JsonToken.START_OBJECT) {
            windows.add(window(p, windows.size()));
        }
        return windows;
    }

    private static CardImage.Window window(JsonParser p, int index) throws IOException {
        String at = "windows[" + index + "]";
        String series = null;
        long ms = -1;
        boolean transitions = false;
        long[] slots = {Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE};
        boolean[] seen = new boolean[slots.length];
        float rolledValue = Float.NaN;
        byte[] values = null;
        byte[] counts = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            int slot = switch (field) {
                case "newest" -> 0;
                case "newestBucket" -> 1;
                case "rolled" -> 2;
                case "moved" -> 3;
                case "movedBucket" -> 4;
                default -> -1;
            };
            if (slot >= 0) {
                slots[slot] = number(p, at + "." + field);
                seen[slot] = true;
                continue;
            }
            switch (field) {
                case "series" -> series = text(p, at + ".series");
                case "ms" -> ms = number(p, at + ".ms");
                case "transitions" -> {
                    expect(p.currentToken().isBoolean(), at + ".transitions: expected true or false");
                    transitions = p.getBooleanValue();
                }
                case "rolledValue" -> rolledValue = Float.intBitsToFloat((int) number(p, at + ".rolledValue"));
                case "values" -> values = binary(p, at + ".values");
                case "counts" -> counts = binary(p, at + ".counts");
                default -> throw new IllegalArgumentException(at + ": unknown field '" + field + "'");
            }
        }
        expect(series != null && ms > 0 && values != null && counts != null,
                at + ": series, ms, values and counts are required");
        for (boolean s : seen) {
            expect(s, at + ": newest, newestBucket, rolled, moved and movedBucket are required");
        }
        expect(values.length % Float.BYTES == 0, at + ".values: " + values.length + " bytes are not whole floats");
        float[] floats = new float[values.length / Float.BYTES];
        ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(floats);
        return new CardImage.Window(series, ms, transitions, new MetricWindow.Image(floats, counts, slots[0],
                slots[1], slots[2], rolledValue, slots[3], slots[4]));
    }

    private static AlertImage alert(JsonParser p, String rule) throws IOException {
        String instance = null;
        AlertState state = null;
        long since = Long.MIN_VALUE;
        long falseSince = -1;
        Map<String, String> labels = null;
        String summary = null;
        String description = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "instance" -> instance = text(p, field);
                case "state" -> {
                    String s = text(p, field);
                    expect(s.equals("PENDING") || s.equals("FIRING"), "state: '" + s + "' is not PENDING or FIRING");
                    state = AlertState.valueOf(s);
                }
                case "since" -> since = number(p, field);
                case "falseSince" -> falseSince = number(p, field);
                case "labels" -> {
                    expect(p.currentToken() == JsonToken.START_OBJECT, "labels: expected an object");
                    labels = new LinkedHashMap<>();
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String key = p.currentName();
                        p.nextToken();
                        labels.put(key, text(p, "labels." + key));
                    }
                }
                case "summary" -> summary = text(p, field);
                case "description" -> description = text(p, field);
                default -> throw new IllegalArgumentException("alert: unknown field '" + field + "'");
            }
        }
        expect(instance != null && state != null && since != Long.MIN_VALUE,
                "alert '" + rule + "': instance, state and since are required");
        return new AlertImage(rule, instance, state, since, falseSince, labels, summary, description);
    }

    private static List<EventLog.Entry> events(JsonParser p) throws IOException {
        expect(p.currentToken() == JsonToken.START_ARRAY, "events: expected an array of [ts, kind, code]");
        List<EventLog.Entry> out = new ArrayList<>();
        while (p.nextToken() == JsonToken.START_ARRAY) {
            String at = "events[" + out.size() + "]";
            p.nextToken();
            long ts = number(p, at + "[0]");
            p.nextToken();
            String kind = text(p, at + "[1]");
            p.nextToken();
            long code = number(p, at + "[2]");
            expect(code >= Integer.MIN_VALUE && code <= Integer.MAX_VALUE, at + "[2]: code out of range");
            expect(p.nextToken() == JsonToken.END_ARRAY, at + ": expected [ts, kind, code]");
            out.add(new EventLog.Entry(ts, kind, (int) code));
        }
        expect(p.currentToken() == JsonToken.END_ARRAY, "events: expected an array of [ts, kind, code]");
        return out;
    }

    private static String text(JsonParser p, String field) throws IOException {
        expect(p.currentToken() == JsonToken.VALUE_STRING, field + ": expected a string");
        return p.getText();
    }

    private static long number(JsonParser p, String field) throws IOException {
        expect(p.currentToken() == JsonToken.VALUE_NUMBER_INT, field + ": expected a whole number");
        return p.getLongValue();
    }

    private static byte[] binary(JsonParser p, String field) throws IOException {
        expect(p.currentToken() == JsonToken.VALUE_STRING, field + ": expected base64 text");
        return p.getBinaryValue();
    }

    private static void expect(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
