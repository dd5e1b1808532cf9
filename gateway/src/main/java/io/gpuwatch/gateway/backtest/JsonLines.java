package io.gpuwatch.gateway.backtest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.gpuwatch.gateway.replay.Replay;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The backtest's JSON-lines form: one object per notification that would have been sent, with {@code trace}
 * (only when several traces were replayed), {@code ts}
 * (epoch ms of the trace), {@code status} ({@code firing}|{@code resolved}), {@code rule}, {@code severity},
 * {@code labels} (the scope's) and the rendered {@code summary}.
 */
public final class JsonLines {
    private static final JsonFactory JSON = new JsonFactory();

    private JsonLines() {
    }

    /** The line for one notification, without the line break. */
    public static String line(Replay.Sent s) {
        return line(s, null);
    }

    /** Likewise, first naming the {@code trace} it came from when not null (a backtest of several traces). */
    public static String line(Replay.Sent s, String trace) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            if (trace != null) {
                g.writeStringField("trace", trace);
            }
            g.writeNumberField("ts", s.at());
            g.writeStringField("status", s.firing() ? "firing" : "resolved");
            g.writeStringField("rule", s.rule());
            g.writeStringField("severity", s.notification().labels().getOrDefault("severity", ""));
            g.writeObjectFieldStart("labels");
            for (Map.Entry<String, String> e : s.scope().entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeStringField("summary", s.notification().annotations().getOrDefault("summary", ""));
            g.writeEndObject();
        } catch (IOException e) {
            // a StringWriter does not fail
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }
}
