package io.gpuwatch.protocol.codec;

import com.fasterxml.jackson.core.JsonGenerator;
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
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes frames in their wire form: type first, then seq, absent values left out, flags as booleans and the
 * clock-event reasons as their names. Writes what it is given; validation is the reader's job.
 */
final class FrameWriter {
    private static final long NEGATIVE_ZERO = Double.doubleToRawLongBits(-0.0);
    private static final double EXACT_LONG = 0x1p53;

    private final JsonGenerator g;

    FrameWriter(JsonGenerator g) {
        this.g = g;
    }

    void write(Frame f, String node) throws IOException {
        g.writeStartObject();
        g.writeStringField("type", f.type());
        if (f instanceof Hello h) {
            hello(h, node);
        } else if (f instanceof Sample s) {
            numbered(s.seq(), s.ts(), node);
            g.writeArrayFieldStart("cards");
            for (CardReading c : s.cards()) {
                reading(c);
            }
            g.writeEndArray();
        } else if (f instanceof Event e) {
            numbered(e.seq(), e.ts(), node);
            optional("uuid", e.uuid());
            g.writeStringField("kind", e.kind());
            if (e.xid() != null) {
                g.writeNumberField("xid", e.xid());
            }
            optional("text", e.text());
            if (e.pid() != null) {
                g.writeNumberField("pid", e.pid());
            }
        } else if (f instanceof App a) {
            numbered(a.seq(), a.ts(), node);
            g.writeStringField("task", a.task());
            optional("business", a.business());
            optional("source", a.source());
            metrics(a.values(), Metric.Source.APP);
        } else if (f instanceof Sched s) {
            numbered(s.seq(), s.ts(), node);
            g.writeStringField("queue", s.queue());
            metrics(s.values(), Metric.Source.SCHED);
            if (!s.tasks().isEmpty()) {
                g.writeArrayFieldStart("tasks");
                for (SchedTask t : s.tasks()) {
                    schedTask(t);
                }
                g.writeEndArray();
            }
        } else if (f instanceof Welcome w) {
            optional("node", node);
            g.writeNumberField("v", w.v());
            g.writeStringField("session", w.session());
            g.writeNumberField("ackedSeq", w.ackedSeq());
            g.writeNumberField("intervalMs", w.intervalMs());
            optional("redirect", w.redirect());
        } else if (f instanceof Ack a) {
            g.writeNumberField("seq", a.seq());
            optional("node", node);
        } else if (f instanceof ErrorFrame e) {
            optional("node", node);
            g.writeStringField("code", e.code());
            if (e.frameSeq() != null) {
                g.writeNumberField("seq", e.frameSeq());
            }
            g.writeStringField("message", e.message());
        } else if (f instanceof ConfigFrame c) {
            optional("node", node);
            g.writeNumberField("intervalMs", c.intervalMs());
        }
        g.writeEndObject();
    }

    private void hello(Hello h, String node) throws IOException {
        if (node != null && !node.equals(h.node())) {
            throw new IllegalArgumentException("a hello of node '" + h.node() + "' cannot be written as node '"
                    + node + "'");
        }
        g.writeNumberField("v", h.v());
        g.writeNumberField("seq", 0);
        g.writeStringField("node", h.node());
        g.writeStringField("bootId", h.bootId());
        optional("probe", h.probe());
        optional("driver", h.driver());
        optional("nvml", h.nvml());
        if (!h.labels().isEmpty()) {
            g.writeObjectFieldStart("labels");
            // sorted so that the same hello always writes the same line
            for (Map.Entry<String, String> e : new TreeMap<>(h.labels()).entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
        }
        g.writeArrayFieldStart("cards");
        for (CardInfo c : h.cards()) {
            g.writeStartObject();
            g.writeStringField("uuid", c.uuid());
            g.writeNumberField("index", c.index());
            optional("name", c.name());
            optional("pciBusId", c.pciBusId());
            if (c.memTotalBytes() != null) {
                g.writeNumberField("memTotalBytes", c.memTotalBytes());
            }
            if (c.powerLimitW() != null) {
                g.writeFieldName("powerLimitW");
                number(c.powerLimitW());
            }
            if (c.maxSmClockMHz() != null) {
                g.writeNumberField("maxSmClockMHz", c.maxSmClockMHz());
            }
            if (c.migMode() != null) {
                g.writeBooleanField("migMode", c.migMode());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private void numbered(long seq, long ts, String node) throws IOException {
        g.writeNumberField("seq", seq);
        optional("node", node);
        g.writeNumberField("ts", ts);
    }

    private void reading(CardReading c) throws IOException {
        g.writeStartObject();
        g.writeStringField("uuid", c.uuid());
        metrics(c.values(), Metric.Source.CARD);
        if (!c.processes().isEmpty()) {
            g.writeArrayFieldStart("processes");
            for (ProcessInfo p : c.processes()) {
                g.writeStartObject();
                g.writeNumberField("pid", p.pid());
                if (p.usedMemBytes() != null) {
                    g.writeNumberField("usedMemBytes", p.usedMemBytes());
                }
                optional("task", p.task());
                optional("owner", p.owner());
                optional("business", p.business());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    private void schedTask(SchedTask t) throws IOException {
        g.writeStartObject();
        g.writeStringField("task", t.task());
        optional("owner", t.owner());
        optional("business", t.business());
        g.writeArrayFieldStart("cards");
        for (String uuid : t.cards()) {
            g.writeString(uuid);
        }
        g.writeEndArray();
        optional("state", t.state());
        if (t.requestedCards() != null) {
            g.writeNumberField("requestedCards", t.requestedCards());
        }
        if (t.requestedMemBytes() != null) {
            g.writeNumberField("requestedMemBytes", t.requestedMemBytes());
        }
        optional("outcome", t.outcome());
        if (t.model() != null) {
            SchedTask.Model m = t.model();
            g.writeObjectFieldStart("model");
            g.writeNumberField("params", m.params());
            g.writeStringField("workload", m.workload());
            g.writeStringField("precision", m.precision());
            if (m.flopsPerSample() != null) {
                g.writeNumberField("flopsPerSample", m.flopsPerSample());
            }
            g.writeEndObject();
        }
        g.writeEndObject();
    }

    private void metrics(MetricValues values, Metric.Source source) throws IOException {
        for (int i = 0; i < Metric.count(); i++) {
            double v = values.get(i);
            Metric m = Metric.of(i);
            if (Double.isNaN(v) || m.source() != source) {
                continue;
            }
            g.writeFieldName(m.field());
            switch (m.kind()) {
                case FLAG -> g.writeBoolean(v != 0);
                case MASK -> {
                    g.writeStartArray();
                    for (String name : ClockEventReason.names((long) v)) {
                        g.writeString(name);
                    }
                    g.writeEndArray();
                }
                default -> number(v);
            }
        }
    }

    /** Whole numbers without a fraction, as producers in other languages would write them. */
    private void number(double v) throws IOException {
        if (v == Math.rint(v) && Math.abs(v) < EXACT_LONG && Double.doubleToRawLongBits(v) != NEGATIVE_ZERO) {
            g.writeNumber((long) v);
        } else {
            g.writeNumber(v);
        }
    }

    private void optional(String name, String value) throws IOException {
        if (value != null) {
            g.writeStringField(name, value);
        }
    }
}
