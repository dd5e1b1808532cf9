package io.gpuwatch.probe.sched;

import io.gpuwatch.probe.app.Exposition;
import io.gpuwatch.protocol.Event;
import io.gpuwatch.protocol.Frame;
import io.gpuwatch.protocol.Sched;
import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.List;

/**
 * A scheduler read through its Prometheus metrics (Kueue, Volcano): fetches the page, hands it to the adapter's
 * reader, and reports lines that break the exposition format once (a {@code probe_degraded} event naming the
 * first by line and column) while using the rest.
 */
public final class ScrapedSource implements SchedSource {
    /** Turns one scrape into one frame per queue; keeps what it needs between scrapes. */
    public interface Reader {
        List<Sched> read(Exposition page, long nowMs) throws SchedInputError;
    }

    private final String name;
    private final MetricsPage page;
    private final Reader reader;
    private boolean badLines;

    public ScrapedSource(String name, MetricsPage page, Reader reader) {
        this.name = name;
        this.page = page;
        this.reader = reader;
    }

    @Override
    public String describe() {
        return name + " (" + page.url() + ")";
    }

    @Override
    public Future<List<Frame>> read(long nowMs) {
        return page.fetch().compose(e -> {
            List<Frame> frames = new ArrayList<>();
            try {
                frames.addAll(reader.read(e, nowMs));
            } catch (SchedInputError err) {
                return Future.failedFuture(err);
            }
            if (e.errors().isEmpty()) {
                badLines = false;
            } else if (!badLines) {
                badLines = true;
                frames.add(new Event(0, nowMs, null, "probe_degraded", null, describe() + ": skipped "
                        + e.errors().size() + " malformed line" + (e.errors().size() == 1 ? "" : "s")
                        + ", first at " + e.errors().get(0), null));
            }
            return Future.succeededFuture(frames);
        });
    }

    @Override
    public Future<Void> close() {
        return page.close();
    }
}
