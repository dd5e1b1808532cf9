package io.gpuwatch.protocol.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.gpuwatch.protocol.Ack;
import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.ClockEventReason;
import io.gpuwatch.protocol.ConfigFrame;
import io.gpuwatch.protocol.ErrorFrame;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;
import io.gpuwatch.protocol.Sched;
import io.gpuwatch.protocol.SchedTask;
import io.gpuwatch.protocol.Welcome;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.function.Function;
import java.util.Map;
import java.util.TreeSet;

import static com.fasterxml.jackson.core.JsonToken.END_ARRAY;
import static com.fasterxml.jackson.core.JsonToken.START_ARRAY;
import static com.fasterxml.jackson.core.JsonToken.START_OBJECT;
import static com.fasterxml.jackson.core.JsonToken.VALUE_NULL;
import static com.fasterxml.jackson.core.JsonToken.VALUE_NUMBER_FLOAT;
import static com.fasterxml.jackson.core.JsonToken.VALUE_NUMBER_INT;
import static com.fasterxml.jackson.core.JsonToken.VALUE_STRING;

/**
 * Decodes one frame's text, token by token straight into the records. One instance per frame; not reusable.
 * Field readers return null (or NaN for metrics) for an absent field and for JSON null.
 */
final class FrameReader {
    private static final Map<String, Metric> CARD_METRICS = metricsOf(Metric.Source.CARD);
    private static final Map<String, Metric> APP_METRICS = metricsOf(Metric.Source.APP);
    private static final Map<String, Metric> SCHED_METRICS = metricsOf(Metric.Source.SCHED);
    private static final Map<String, ClockEventReason> REASONS = reasons();
    /** Each metric's least and greatest valid reading, by ordinal. */
    static final double[] MIN = new double[Metric.count()];
    static final double[] MAX = new double[Metric.count()];
    private static final int QUOTED_CHARS = 64;
    private static final String REDACTED_SOURCE =
            "[Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); ";
    private static final String NON_NUMERIC_HINT = "Number (or 'NaN'/'+INF'/'-INF')";

    static {
        for (int i = 0; i < Metric.count(); i++) {
            Metric m = Metric.of(i);
            switch (m) {
                case GPU_UTIL, MEM_UTIL -> range(m, 0, 100);
                case SM_ACTIVE, SM_OCCUPANCY, TENSOR_ACTIVE, DRAM_ACTIVE, KV_CACHE_USAGE -> range(m, 0, 1);
                // a sensor below freezing is odd, not impossible
                case TEMP_C, MEM_TEMP_C -> range(m, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY);
                default -> range(m, 0, Double.POSITIVE_INFINITY);
            }
        }
    }

    private final JsonFactory json;
    private final FrameLimits limits;
    private final String text;
    private JsonParser p;
    private String type;
    private Long seq;
    private String node;
    private boolean versionSeen;

    FrameReader(JsonFactory json, FrameLimits limits, String text) {
        this.json = json;
        this.limits = limits;
        this.text = text;
    }

    Decoded read() {
        try {
            Frame frame = frame();
            return new Decoded.Ok(frame, node);
        } catch (FrameError e) {
            return new Decoded.Bad(e.code(), seq, e.path(), e.message());
        } catch (JsonProcessingException e) {
            return new Decoded.Bad(Decoded.Bad.BAD_JSON, seq, "", invalidJson(e));
        } catch (IOException e) {
            return new Decoded.Bad(Decoded.Bad.BAD_JSON, seq, "", "unreadable frame: " + e.getMessage());
        } finally {
            close();
        }
    }

    private Frame frame() throws IOException, FrameError {
        p = json.createParser(text);
        JsonToken t = p.nextToken();
        if (t != START_OBJECT) {
            throw FrameError.of(Decoded.Bad.BAD_JSON, "", t == null
                    ? "frame is empty; expected one JSON object"
                    : "frame must be a JSON object, got " + got(t));
        }
        if ("type".equals(p.nextFieldName())) {
            type = typeName(p.nextToken());
        } else {
            // fields may come in any order; only when type is not first does the text get read twice
            type = typeName(seek("type"));
            restart();
        }
        Frame frame;
        try {
            frame = switch (type) {
                case "hello" -> hello();
                case "sample" -> sample();
                case "event" -> event();
                case "app" -> app();
                case "sched" -> sched();
                case "welcome" -> welcome();
                case "ack" -> ack();
                case "error" -> error();
                case "config" -> config();
                default -> throw FrameError.of(Decoded.Bad.UNKNOWN_TYPE, "type",
                        "unknown frame type '" + clip(type) + "'");
            };
        } catch (FrameError e) {
            if (!versionSeen && (type.equals("hello") || type.equals("welcome"))) {
                // a frame of another version may break v1's rules before its v is reached; the version is the news
                JsonToken v = seek("v");
                if (v != null) {
                    version(v);
                }
            }
            throw e;
        }
        JsonToken after = p.nextToken();
        if (after != null) {
            throw FrameError.of(Decoded.Bad.BAD_JSON, "", "unexpected content after the frame object at "
                    + where(p.currentTokenLocation()) + "; a frame is exactly one JSON object");
        }
        return frame;
    }

    // ---- producer frames

    private Hello hello() throws IOException, FrameError {
        Integer v = null;
        String nodeName = null;
        String bootId = null;
        String probe = null;
        String driver = null;
        String nvml = null;
        Map<String, String> labels = Map.of();
        List<CardInfo> cards = null;
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken t = p.nextToken();
            switch (name) {
                case "v" -> v = version(t);
                case "node" -> nodeName = nodeName(name, t);
                case "bootId" -> bootId = id(name, t);
                case "probe" -> probe = string(name, t);
                case "driver" -> driver = string(name, t);
                case "nvml" -> nvml = string(name, t);
                case "labels" -> labels = labels(t);
                case "cards" -> cards = cardInfos(t);
                case "type" -> sameType(t);
                default -> skip(name, t);
            }
        }
        return new Hello(required(v, "v"), required(nodeName, "node"), required(bootId, "bootId"), probe, driver,
                nvml, labels, required(cards, "cards"));
    }

    private Sample sample() throws IOException, FrameError {
        Long ts = null;
        List<CardReading> cards = null;
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken t = p.nextToken();
            switch (name) {
                case "seq" -> seq(t);
                case "ts" -> ts = ts(t);
                case "cards" -> cards = readings(t);
                default -> common(name, t);
            }
        }
        return new Sample(required(seq, "seq"), required(ts, "ts"), required(cards, "cards"));
    }

    private Event event() throws IOException, FrameError {
        Long ts = null;
        String uuid = null;
        String kind = null;
        Integer xid = null;
        String eventText = null;
        Long pid = null;
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken t = p.nextToken();
            switch (name) {
                case "seq" -> seq(t);
                case "ts" -> ts = ts(t);
                case "uuid" -> uuid = id(name, t);
                case "kind" -> kind = kind(name, t);
                case "xid" -> xid = int32(name, t);
                case "text" -> eventText = string(name, t);
                case "pid" -> pid = integer(name, t, 0);
                default -> common(name, t);
            }
        }
        long s = required(seq, "seq");
        long at = required(ts, "ts");
        if (required(kind, "kind").equals("xid") && xid == null) {
            throw FrameError.missing("xid", "required when kind is 'xid'");
        }
        return new Event(s, at, uuid, kind, xid, eventText, pid);
    }

    private App app() throws IOException, FrameError {
        Long ts = null;
        String task = null;
        String business = null;
        String source = null;
        MetricValues.Builder values = MetricValues.builder();
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken t = p.nextToken();
            switch (name) {
                case "seq" -> seq(t);
                case "ts" -> ts = ts(t);
                case "task" -> task = id(name, t);
                case "business" -> business = string(name, t);
                case "source" -> source = string(name, t);
                default -> {
                    Metric m = APP_METRICS.get(name);
                    if (m != null) {
                        metric(values, m, t);
                    } else {
                        common(name, t);
                    }
                }
            }
        }
        return new App(required(seq, "seq"), required(ts, "ts"), required(task, "task"), business, source,
                values.build());
    }

    private Sched sched() throws IOException, FrameError {
        Long ts = null;
        String queue = null;
        List<SchedTask> tasks = List.of();
        MetricValues.Builder values = MetricValues.builder();
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken t = p.nextToken();
            switch (name) {
                case "seq" -> seq(t);
                case "ts" -> ts = ts(t);
                case "queue" -> queue = id(name, t);
                case "tasks" -> tasks = schedTasks(t);
                default -> {
                    Metric m = SCHED_METRICS.get(name);
                    if (m != null) {
                        metric(values, m, t);
                    } else {
                        common(name, t);
                    }
                }
            }
        }
        return new Sched(required(seq, "seq"), required(ts, "ts"), required(queue, "queue"), values.build(), tasks);
    }

    // ---- gateway frames

    private Welcome welcome() throws IOException, FrameError {
        Integer v = null;
        String session = null;
        Long ackedSeq = null;
        Long intervalMs = null;
        String redirect = null;
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken t = p.nextToken();
            switch (name) {
                case "v" -> v = version(t);
                case "session" -> session = id(name, t);
                case "ackedSeq" -> ackedSeq = integer(name, t, 0);
                case "intervalMs" -> intervalMs = integer(name, t, 1);
                case "redirect" -> redirect = probeUrl(name, t);
                default -> common(name, t);
            }
        }
        return new Welcome(required(v, "v"), required(session, "session"), required(ackedSeq, "ackedSeq"),
                required(intervalMs, "intervalMs"), redirect);
    }

    /** A gateway's probe URL: {@code ws://} or {@code wss://}, a host, and nothing a probe could not dial. */
    private String probeUrl(String name, JsonToken t) throws IOException, FrameError {
        String url = string(name, t);
        if (url == null) {
            return null;
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw FrameError.field(name, " must be a ws:// or wss:// URL, got '" + clip(url) + "'");
        }
        if (!("ws".equals(uri.getScheme()) || "wss".equals(uri.getScheme())) || uri.getHost() == null) {
            throw FrameError.field(name, " must be a ws:// or wss:// URL with a host, got '" + clip(url) + "'");
        }
        return url;
    }

    private Ack ack() throws IOException, FrameError {
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken t = p.nextToken();
            if (name.equals("seq")) {
                seq(t);
            } else {
                common(name, t);
            }
        }
        return new Ack(required(seq, "seq"));
    }

    private ErrorFrame error() throws IOException, FrameError {
        String code = null;
        Long frameSeq = null;
        String message = null;
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken t = p.nextToken();
            switch (name) {
                case "code" -> code = id(name, t);
                case "seq" -> frameSeq = integer(name, t, 0);
                case "message" -> message = string(name, t);
                default -> common(name, t);
            }
        }
        return new ErrorFrame(required(code, "code"), frameSeq, required(message, "message"));
    }

    private ConfigFrame config() throws IOException, FrameError {
        Long intervalMs = null;
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken t = p.nextToken();
            if (name.equals("intervalMs")) {
                intervalMs = integer(name, t, 1);
            } else {
                common(name, t);
            }
        }
        return new ConfigFrame(required(intervalMs, "intervalMs"));
    }

    // ---- nested objects

    private List<CardInfo> cardInfos(JsonToken t) throws IOException, FrameError {
        if (!isArray("cards", t)) {
            return null;
        }
        List<CardInfo> cards = elements("cards", limits.maxCards(), this::cardInfo);
        distinctUuids(cards, CardInfo::uuid);
        return cards;
    }

    /** Reads the elements of the array just opened, each by {@code element}, naming its index in errors. */
    private <T> List<T> elements(String field, int limit, Element<T> element) throws IOException, FrameError {
        List<T> out = new ArrayList<>(Math.min(limit, 8));
        for (int i = 0; p.nextToken() != END_ARRAY; i++) {
            if (i == limit) {
                throw tooMany(field, limit, field);
            }
            try {
                out.add(element.read(p.currentToken()));
            } catch (FrameError e) {
                throw e.within(field + "[" + i + "]");
            }
        }
        return out;
    }

    /** Reads one array element starting at its first token. */
    @FunctionalInterface
    private interface Element<T> {
        T read(JsonToken t) throws IOException, FrameError;
    }

    private static <T> void distinctUuids(List<T> cards, Function<T, String> uuid) throws FrameError {
        for (int j = 1; j < cards.size(); j++) {
            for (int i = 0; i < j; i++) {
                if (uuid.apply(cards.get(i)).equals(uuid.apply(cards.get(j)))) {
                    throw duplicateUuid(i, j, uuid.apply(cards.get(j)));
                }
            }
        }
    }

    private CardInfo cardInfo(JsonToken t) throws IOException, FrameError {
        requireObject(t);
        String uuid = null;
        Integer index = null;
        String name = null;
        String pciBusId = null;
        Long memTotalBytes = null;
        Double powerLimitW = null;
        Integer maxSmClockMHz = null;
        Boolean migMode = null;
        for (String field; (field = p.nextFieldName()) != null; ) {
            JsonToken v = p.nextToken();
            switch (field) {
                case "uuid" -> uuid = id(field, v);
                case "index" -> index = int32(field, v);
                case "name" -> name = string(field, v);
                case "pciBusId" -> pciBusId = string(field, v);
                case "memTotalBytes" -> memTotalBytes = integer(field, v, 0);
                case "powerLimitW" -> powerLimitW = nonNegative(field, v);
                case "maxSmClockMHz" -> maxSmClockMHz = int32(field, v);
                case "migMode" -> migMode = bool(field, v);
                default -> skip(field, v);
            }
        }
        return new CardInfo(required(uuid, "uuid"), required(index, "index"), name, pciBusId, memTotalBytes,
                powerLimitW, maxSmClockMHz, migMode);
    }

    private List<CardReading> readings(JsonToken t) throws IOException, FrameError {
        if (!isArray("cards", t)) {
            return null;
        }
        List<CardReading> cards = elements("cards", limits.maxCards(), this::reading);
        distinctUuids(cards, CardReading::uuid);
        return cards;
    }

    private CardReading reading(JsonToken t) throws IOException, FrameError {
        requireObject(t);
        String uuid = null;
        List<ProcessInfo> processes = List.of();
        MetricValues.Builder values = MetricValues.builder();
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken v = p.nextToken();
            if (name.equals("uuid")) {
                uuid = id(name, v);
            } else if (name.equals("processes")) {
                processes = processes(v);
            } else {
                Metric m = CARD_METRICS.get(name);
                if (m != null) {
                    metric(values, m, v);
                } else {
                    skip(name, v);
                }
            }
        }
        return new CardReading(required(uuid, "uuid"), values.build(), processes);
    }

    private List<ProcessInfo> processes(JsonToken t) throws IOException, FrameError {
        if (!isArray("processes", t)) {
            return List.of();
        }
        return elements("processes", limits.maxProcessesPerCard(), this::process);
    }

    private ProcessInfo process(JsonToken t) throws IOException, FrameError {
        requireObject(t);
        Long pid = null;
        Long usedMemBytes = null;
        String task = null;
        String owner = null;
        String business = null;
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken v = p.nextToken();
            switch (name) {
                case "pid" -> pid = integer(name, v, 0);
                case "usedMemBytes" -> usedMemBytes = integer(name, v, 0);
                case "task" -> task = string(name, v);
                case "owner" -> owner = string(name, v);
                case "business" -> business = string(name, v);
                default -> skip(name, v);
            }
        }
        return new ProcessInfo(required(pid, "pid"), usedMemBytes, task, owner, business);
    }

    private List<SchedTask> schedTasks(JsonToken t) throws IOException, FrameError {
        if (!isArray("tasks", t)) {
            return List.of();
        }
        return elements("tasks", Integer.MAX_VALUE, this::schedTask);
    }

    private SchedTask schedTask(JsonToken t) throws IOException, FrameError {
        requireObject(t);
        String task = null;
        String owner = null;
        String business = null;
        List<String> cards = List.of();
        String state = null;
        Integer requestedCards = null;
        Long requestedMemBytes = null;
        String outcome = null;
        SchedTask.Model model = null;
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken v = p.nextToken();
            switch (name) {
                case "task" -> task = id(name, v);
                case "owner" -> owner = string(name, v);
                case "business" -> business = string(name, v);
                case "cards" -> cards = uuids(name, v);
                case "state" -> state = string(name, v);
                case "requestedCards" -> requestedCards = int32(name, v);
                case "requestedMemBytes" -> requestedMemBytes = integer(name, v, 0);
                case "outcome" -> outcome = oneOf(name, v, SchedTask.OUTCOMES);
                case "model" -> model = model(v);
                default -> skip(name, v);
            }
        }
        return new SchedTask(required(task, "task"), owner, business, cards, state, requestedCards,
                requestedMemBytes, outcome, model);
    }

    /** A task's model: {@code params} is required, the rest has defaults. */
    private SchedTask.Model model(JsonToken t) throws IOException, FrameError {
        if (t == VALUE_NULL) {
            return null;
        }
        requireObject(t);
        Double params = null;
        String workload = SchedTask.Model.DEFAULT_WORKLOAD;
        String precision = SchedTask.Model.DEFAULT_PRECISION;
        Double flopsPerSample = null;
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken v = p.nextToken();
            String field = "model." + name;
            switch (name) {
                case "params" -> params = nonNegative(field, v);
                case "workload" -> workload = orElse(oneOf(field, v, SchedTask.Model.WORKLOADS), workload);
                case "precision" -> precision = orElse(oneOf(field, v, SchedTask.Model.PRECISIONS), precision);
                case "flopsPerSample" -> flopsPerSample = nonNegative(field, v);
                default -> skip(field, v);
            }
        }
        if (params == null || params <= 0) {
            throw FrameError.field("model.params", params == null ? " is required: the model's parameter count"
                    : " must be positive, got 0");
        }
        return new SchedTask.Model(params, workload, precision, flopsPerSample);
    }

    private static String orElse(String s, String otherwise) {
        return s != null ? s : otherwise;
    }

    /** A string that must be one of {@code allowed}; null for JSON null. */
    private String oneOf(String name, JsonToken t, Collection<String> allowed) throws IOException,
            FrameError {
        String s = string(name, t);
        if (s != null && !allowed.contains(s)) {
            throw FrameError.field(name, " must be one of " + String.join(", ", new TreeSet<>(allowed))
                    + ", got " + got(t));
        }
        return s;
    }

    private List<String> uuids(String name, JsonToken t) throws IOException, FrameError {
        if (!isArray(name, t)) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; p.nextToken() != END_ARRAY; i++) {
            JsonToken e = p.currentToken();
            if (e != VALUE_STRING) {
                throw wrongType(name + "[" + i + "]", "a string", e);
            }
            out.add(id(name + "[" + i + "]", e));
        }
        return out;
    }

    private Map<String, String> labels(JsonToken t) throws IOException, FrameError {
        if (t == VALUE_NULL) {
            return Map.of();
        }
        if (t != START_OBJECT) {
            throw wrongType("labels", "an object", t);
        }
        Map<String, String> out = new HashMap<>();
        for (String key; (key = p.nextFieldName()) != null; ) {
            JsonToken v = p.nextToken();
            if (key.isEmpty() || key.length() > limits.maxStringChars()) {
                throw FrameError.field("labels", " has a label name that is empty or longer than "
                        + limits.maxStringChars() + " characters");
            }
            String value = string("labels." + key, v);
            if (value != null) {
                out.put(key, value);
            }
        }
        return out;
    }

    // ---- metrics

    private void metric(MetricValues.Builder values, Metric m, JsonToken t) throws IOException, FrameError {
        String name = m.field();
        switch (m.kind()) {
            case FLAG -> {
                Boolean b = bool(name, t);
                if (b != null) {
                    values.set(m, b ? 1 : 0);
                }
            }
            case MASK -> {
                if (isArray(name, t)) {
                    values.set(m, reasonMask(name));
                }
            }
            default -> {
                double v = number(name, t);
                if (!Double.isNaN(v)) {
                    values.set(m, inRange(m, v));
                }
            }
        }
    }

    private long reasonMask(String name) throws IOException, FrameError {
        long mask = 0;
        for (int i = 0; p.nextToken() != END_ARRAY; i++) {
            JsonToken e = p.currentToken();
            if (e != VALUE_STRING) {
                throw wrongType(name + "[" + i + "]", "a string", e);
            }
            ClockEventReason r = REASONS.get(p.getText());
            if (r == null) {
                throw FrameError.field(name + "[" + i + "]", " is not an NVML clock-event reason: " + got(e));
            }
            mask |= r.bit();
        }
        return mask;
    }

    private double inRange(Metric m, double v) throws IOException, FrameError {
        double min = MIN[m.ordinal()];
        double max = MAX[m.ordinal()];
        if (v < min || v > max) {
            throw FrameError.field(m.field(), max == Double.POSITIVE_INFINITY
                    ? " must not be negative, got " + p.getText()
                    : " must be between " + (long) min + " and " + (long) max + ", got " + p.getText());
        }
        return v;
    }

    // ---- scalar fields

    private void seq(JsonToken t) throws IOException, FrameError {
        seq = integer("seq", t, 0);
    }

    private Long ts(JsonToken t) throws IOException, FrameError {
        return integer("ts", t, 1);
    }

    private Integer version(JsonToken t) throws IOException, FrameError {
        if (t == VALUE_NULL) {
            return null;
        }
        versionSeen = true;
        long v = integer("v", t, 1);
        if (v != Frame.VERSION) {
            throw FrameError.of(Decoded.Bad.UNSUPPORTED_VERSION, "v",
                    "unsupported protocol version " + v + "; this side speaks version " + Frame.VERSION);
        }
        return Frame.VERSION;
    }

    private String typeName(JsonToken t) throws IOException, FrameError {
        String s = t == null ? null : string("type", t);
        if (s == null) {
            throw FrameError.missing("type");
        }
        return s;
    }

    /** A frame other than hello: a repeated type must agree, a trace's node key is kept, the rest is skipped. */
    private void common(String name, JsonToken t) throws IOException, FrameError {
        if (name.equals("node")) {
            node = nodeName(name, t);
        } else if (name.equals("type")) {
            sameType(t);
        } else {
            skip(name, t);
        }
    }

    private void sameType(JsonToken t) throws IOException, FrameError {
        if (t != VALUE_STRING || !p.getText().equals(type)) {
            throw FrameError.field("type", " is given twice, as '" + clip(type) + "' and as " + got(t));
        }
    }

    private String nodeName(String name, JsonToken t) throws IOException, FrameError {
        String s = string(name, t);
        if (s != null && !isNodeName(s)) {
            throw FrameError.field(name, " must be 1 to 253 of the characters A-Z a-z 0-9 . _ -, got " + got(t));
        }
        return s;
    }

    private String kind(String name, JsonToken t) throws IOException, FrameError {
        String s = string(name, t);
        if (s != null && !isLowerSnake(s)) {
            throw FrameError.field(name, " must be lower snake case like 'process_exit', got " + got(t));
        }
        return s;
    }

    /** A string that names something, so it cannot be empty. */
    private String id(String name, JsonToken t) throws IOException, FrameError {
        String s = string(name, t);
        if (s != null && s.isEmpty()) {
            throw FrameError.field(name, " must not be empty");
        }
        return s;
    }

    private String string(String name, JsonToken t) throws IOException, FrameError {
        if (t == VALUE_NULL) {
            return null;
        }
        if (t != VALUE_STRING) {
            throw wrongType(name, "a string", t);
        }
        if (p.getTextLength() > limits.maxStringChars()) {
            throw FrameError.field(name, " is longer than the " + limits.maxStringChars() + " characters allowed");
        }
        return p.getText();
    }

    private Boolean bool(String name, JsonToken t) throws IOException, FrameError {
        return switch (t) {
            case VALUE_NULL -> null;
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            default -> throw wrongType(name, "true or false", t);
        };
    }

    private Long integer(String name, JsonToken t, long min) throws IOException, FrameError {
        if (t == VALUE_NULL) {
            return null;
        }
        if (t != VALUE_NUMBER_INT) {
            throw wrongType(name, "an integer", t);
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw FrameError.field(name, " is out of range, got " + clip(p.getText()));
        }
        long v = p.getLongValue();
        if (v < min) {
            throw FrameError.field(name, (min == 0 ? " must not be negative, got " : " must be positive, got ") + v);
        }
        return v;
    }

    private Integer int32(String name, JsonToken t) throws IOException, FrameError {
        Long v = integer(name, t, 0);
        if (v != null && v > Integer.MAX_VALUE) {
            throw FrameError.field(name, " is out of range, got " + v);
        }
        return v == null ? null : v.intValue();
    }

    /** A finite number, or NaN for JSON null. */
    private double number(String name, JsonToken t) throws IOException, FrameError {
        if (t == VALUE_NULL) {
            return Double.NaN;
        }
        if (t != VALUE_NUMBER_INT && t != VALUE_NUMBER_FLOAT) {
            throw wrongType(name, "a number", t);
        }
        double v = p.getDoubleValue();
        if (!Double.isFinite(v)) {
            throw FrameError.field(name, " must be a finite number, got " + clip(p.getText()));
        }
        return v;
    }

    private Double nonNegative(String name, JsonToken t) throws IOException, FrameError {
        double v = number(name, t);
        if (Double.isNaN(v)) {
            return null;
        }
        if (v < 0) {
            throw FrameError.field(name, " must not be negative, got " + p.getText());
        }
        return v;
    }

    /** Skips an unknown field's value, refusing NaN and Infinity anywhere in it: they are not JSON. */
    private void skip(String name, JsonToken t) throws IOException, FrameError {
        int depth = 0;
        while (true) {
            if (t == VALUE_NUMBER_FLOAT && p.isNaN()) {
                throw FrameError.field(name, " holds " + p.getText() + ", which is not a JSON number");
            }
            if (t == START_OBJECT || t == START_ARRAY) {
                depth++;
            } else if (t.isStructEnd()) {
                depth--;
            }
            if (depth == 0) {
                return;
            }
            t = p.nextToken();
        }
    }

    // ---- checks and messages

    private static <T> T required(T value, String name) throws FrameError {
        if (value == null) {
            throw FrameError.missing(name);
        }
        return value;
    }

    private boolean isArray(String name, JsonToken t) throws IOException, FrameError {
        if (t == VALUE_NULL) {
            return false;
        }
        if (t != START_ARRAY) {
            throw wrongType(name, "an array", t);
        }
        return true;
    }

    private void requireObject(JsonToken t) throws IOException, FrameError {
        if (t != START_OBJECT) {
            throw wrongType("", "an object", t);
        }
    }

    private FrameError wrongType(String name, String expected, JsonToken t) throws IOException {
        return FrameError.field(name, " must be " + expected + ", got " + got(t));
    }

    private static FrameError tooMany(String name, int limit, String what) {
        return FrameError.field(name, " has more than the " + limit + " " + what + " allowed");
    }

    private static FrameError duplicateUuid(int first, int again, String uuid) {
        return FrameError.field("cards[" + again + "].uuid", " repeats the uuid of cards[" + first + "]: "
                + quote(uuid));
    }

    /** The current value as a message shows it: strings quoted and clipped, containers by their kind. */
    private String got(JsonToken t) throws IOException {
        return switch (t) {
            case VALUE_STRING -> quote(p.getText());
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            default -> clip(p.getText());
        };
    }

    private static String quote(String s) {
        return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(clip(s))) + "\"";
    }

    private static String clip(String s) {
        return s.length() <= QUOTED_CHARS ? s : s.substring(0, QUOTED_CHARS) + "...";
    }

    private static String invalidJson(JsonProcessingException e) {
        JsonLocation at = e.getLocation();
        String where = at == null ? "" : " at " + where(at);
        return "invalid JSON" + where + ": " + e.getOriginalMessage()
                // jackson's wording assumes source text in locations and NaN as a number, both off the wire here
                .replace(REDACTED_SOURCE, "[")
                .replace(NON_NUMERIC_HINT, "Number");
    }

    private static String where(JsonLocation at) {
        return at.getLineNr() + ":" + at.getColumnNr();
    }

    static boolean isNodeName(String s) {
        if (s.isEmpty() || s.length() > 253) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static boolean isLowerSnake(String s) {
        if (s.isEmpty() || s.charAt(0) < 'a' || s.charAt(0) > 'z' || s.charAt(s.length() - 1) == '_') {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' && s.charAt(i - 1) != '_';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    // ---- parser handling

    /** Positions a fresh parser on the value of a top-level field; null when the frame has no such field. */
    private JsonToken seek(String field) throws IOException {
        restart();
        for (String name; (name = p.nextFieldName()) != null; ) {
            JsonToken t = p.nextToken();
            if (name.equals(field)) {
                return t;
            }
            p.skipChildren();
        }
        return null;
    }

    /** A fresh parser just inside the frame's object. */
    private void restart() throws IOException {
        close();
        p = json.createParser(text);
        p.nextToken();
    }

    private void close() {
        if (p != null) {
            try {
                p.close();
            } catch (IOException e) {
                // closing a parser over a String releases buffers only; nothing to report
            }
        }
    }

    private static void range(Metric m, double min, double max) {
        MIN[m.ordinal()] = min;
        MAX[m.ordinal()] = max;
    }

    private static Map<String, Metric> metricsOf(Metric.Source source) {
        Map<String, Metric> out = new HashMap<>();
        for (int i = 0; i < Metric.count(); i++) {
            Metric m = Metric.of(i);
            if (m.source() == source) {
                out.put(m.field(), m);
            }
        }
        return out;
    }

    private static Map<String, ClockEventReason> reasons() {
        Map<String, ClockEventReason> out = new HashMap<>();
        for (ClockEventReason r : ClockEventReason.values()) {
            out.put(r.name(), r);
        }
        return out;
    }
}
